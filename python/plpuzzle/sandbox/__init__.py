"""Running code we did not write, so that it decides nothing but its answers.

The parts, each in its own module:

- `workspace`: the grader's working folders (locked, cleaned after a
  killed run) and the copy of a submission, regular files only;
- `cgroups`: the control group that accounts and bounds a sandbox's
  whole process tree (CPU time, memory, processes);
- `jail`: bubblewrap, the unprivileged uid and the rlimits;
- `program`: a submission loaded once in a sandbox and run once per
  test, with everything that decides a grade observed from outside.
"""
