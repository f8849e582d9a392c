"""One module per published tool, named after its id (``my-new-tool`` is ``my_new_tool``),
each defining ``TOOL``: its fields and limits read from its descriptor,
its output types, its algorithm and its own errors. ``texttools.registry`` finds them."""
