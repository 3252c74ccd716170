"""The API-key interface under ``/api/v1`` (``keyed-api-v1.md``).

``routes.install(app, corpus)`` registers it on the app from
:func:`corpuskit.api.create_app`; ``access`` checks keys, ``handlers`` holds one
function per endpoint, ``queries`` the read-side SQL of the resources that are
not served by another stage's read functions.
"""
