"""Running sandboxed work on a Dask distributed cluster.

- `worker_side`: what a worker runs (shipped submissions loaded once in
  a sandbox, runs observed from outside) and the gate that admits only
  workers able to sandbox;
- `client_side`: connecting, admitting workers, shipping content once;
- `local`: a LocalCluster configured for grading (`plpuzzle cluster local`).

Dask is an optional dependency (`pip install 'plpuzzle[dask]'`); nothing
here is imported unless a cluster is asked for.
"""
