"""The site's PostgreSQL schema as Alembic migrations (:func:`tablezoo.tables.cluster.migrate` runs them)."""
