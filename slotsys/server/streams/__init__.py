"""Long-lived Server-Sent Event streams off the request threads: the event-loop stream server
(``slotsys streams``, :mod:`slotsys.server.streams.server`) and the gunicorn worker's hand-off of stream
requests to an in-process event loop (:mod:`slotsys.server.streams.handoff`), both on :mod:`slotsys.server.streams.hub`.
See docs/streams.md."""
