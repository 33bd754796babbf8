"""Grading a class of hand-ins: one module for each part of the job.

- model: grades, submissions, settings, a test's grade;
- intake: reading a class (folders, bare files, archives);
- config: points per test (points.toml) and suite.toml;
- judging: a test's grade from what the parent observed;
- scheduling: where the runs go, behind one protocol: pool (the local
  pool of sandboxes) or cluster (a Dask cluster's workers);
- gradebook: the SQLite file of every grade, so a run resumes;
- grader: a class run from start to reports;
- report (CSV, JSON) and report_html: the class report;
- feedback (with feedback_model, feedback_render and shrink): a file
  per student, with the smallest puzzle their solver gets wrong.
"""
