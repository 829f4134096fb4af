"""The bias report: registry of measures, runner, HTML page, model comparison."""
