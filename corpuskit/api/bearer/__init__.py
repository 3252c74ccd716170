"""The read-only, bearer-authenticated interface under ``/v1``.

``routes.install(app, corpus)`` adds its endpoints to the root app;
``queries`` holds the SQL its lists need (keyset paging), ``shapes`` turns
rows into the spec's JSON, ``stream`` serves the live signal stream.
"""
