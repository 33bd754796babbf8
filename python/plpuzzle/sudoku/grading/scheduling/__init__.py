"""Where a class's runs go, behind one protocol (protocol.py): the local
pool of sandboxes on this machine (local_pool.py, the default) or the
workers of a Dask cluster (on_dask.py)."""
