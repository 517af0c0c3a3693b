"""Clients: mctslab's players on outside servers.

- :mod:`~mctslab.clients.bohnenspiel`: the Bohnenspiel course-server client.

May import: :mod:`mctslab.arena`, :mod:`mctslab.players` and the layers below them.
"""
