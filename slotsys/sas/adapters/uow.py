"""The SAS host's repositories, registered with the unit of work by the composition root."""

from slotsys.sas.adapters.link_state import SasLinkRepo

REPOSITORIES = {"sas_links": SasLinkRepo}
