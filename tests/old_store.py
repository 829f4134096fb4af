"""The version-1 store schema, shared by the tests that open or migrate an old store."""

V1_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE scores (model TEXT NOT NULL, namespace TEXT NOT NULL, key TEXT NOT NULL,
    value REAL NOT NULL, PRIMARY KEY (model, namespace, key)) WITHOUT ROWID;
CREATE TABLE runs (run_id TEXT PRIMARY KEY, model TEXT NOT NULL, method TEXT NOT NULL,
    params TEXT NOT NULL, version TEXT NOT NULL, created REAL NOT NULL,
    summary TEXT NOT NULL, metadata TEXT NOT NULL);
CREATE TABLE run_items (run_id TEXT PRIMARY KEY, items BLOB NOT NULL);
INSERT INTO meta VALUES ('schema_version', '1');
"""
