"""SAS links: RS-232 through pyserial (wakeup bit as mark/space parity), pseudo-terminals and TCP (wakeup bit
in band). All share :class:`~slotsys.sas.adapters.links.Link`."""
