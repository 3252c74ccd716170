"""The read-only, bearer-authenticated interface under ``/v1``.

``routes.install(app, corpus)`` adds its endpoints to the root app from the
route table ``routes.ROUTES``; the handlers are in ``records`` (records,
stories), ``catalog`` (signals, topics, entities) and ``aggregates`` (sources,
stats, arcs, streams), their parameter helpers in ``request``; ``queries``
holds the read calls its lists need (keyset paging), ``shapes`` turns rows
into the spec's JSON, ``stream`` serves the live signal stream.
"""
