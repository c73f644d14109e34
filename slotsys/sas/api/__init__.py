"""The SAS host's HTTP face: what the console reads of the SAS links (``/api/v1/sas``)."""
