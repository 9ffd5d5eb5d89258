"""DRMAA 1.0, the standard job API: a C library (libdrmaa) that DRMAA programs and
bindings load, implemented in Python over gridd's client (session, template) and
exported as C functions through a cffi embedded module (cdecl, glue, build)."""
