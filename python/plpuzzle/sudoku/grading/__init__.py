"""Grading a class of hand-ins: one module for each part of the job.

- model: grades, submissions, settings, a test's grade;
- intake: reading a class (folders, bare files, archives);
- config: points per test (points.toml) and suite.toml;
- judging: a test's grade from what the parent observed;
- scheduling/: where the runs go, behind one protocol: local_pool (the
  sandboxes of this machine) or on_dask (a Dask cluster's workers);
- gradebook: the SQLite file of every grade, so a run resumes;
- grader: a class run from start to reports;
- report (CSV, JSON) and report_html: the class report;
- feedback/: a file per student (build, model, render), with the
  smallest puzzle their solver gets wrong (shrink);
- pages/: the templates every HTML page is drawn from;
- similarity/: similar hand-ins.
"""
