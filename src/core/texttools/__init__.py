"""Exact text chunking: the pure core shared by every function, deployed as the Lambda layer.

Nothing here knows of Lambda, HTTP or AWS SDKs; handlers adapt events to it. ``registry`` knows the
tools (one module each under ``tools/``), ``tool`` runs one request through a tool, ``documents``
holds the S3 layout rules, ``errors`` the one error table.
"""
