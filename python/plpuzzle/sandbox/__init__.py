"""Running code we did not write, so that it decides nothing but its answers.

The parts, each in its own module:

- `workspace`: the grader's working folders (locked, cleaned after a
  killed run) and a submission's files, read into memory: regular files
  only, from a folder or an archive, within bounds;
- `cgroups`: the control group that accounts and bounds a sandbox's
  whole process tree (CPU time, memory, processes), as root or in a
  group delegated to the grader's user;
- `proctree`: the process tree in /proc, where no group can be made;
- `meter`: which of the two measures a sandbox, and which count of CPU
  time (the kernel's, or wall time charged per core) the reports state;
- `jail`: bubblewrap, the sandbox's minimal view of the machine, the
  unprivileged uid (a slot claimed machine-wide) and the rlimits;
- `program`: a submission loaded once in a sandbox and run once per
  test, with everything that decides a grade observed from outside and
  nothing it says kept beyond a budget.
"""
