"""The SAS host engine (:mod:`.host`), the port it talks to the floor through (:mod:`.floor_port`) and a small
in-memory floor behind that port for tests and the emulated floor (:mod:`.memory_floor`)."""
