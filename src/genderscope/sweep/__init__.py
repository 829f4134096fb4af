"""``genderscope sweep``: many models (and revisions) x many measures as Ray tasks.

:mod:`~genderscope.sweep.spec` (what to run), :mod:`~genderscope.sweep.jobs` (one
model's job, no Ray), :mod:`~genderscope.sweep.driver` (Ray tasks, retries,
recording), :mod:`~genderscope.sweep.report` (leaderboard page and trajectories).
Ray is imported only by the driver when jobs run.
"""
