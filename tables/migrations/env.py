"""Alembic's environment for the site's schema: run on the connection the caller passes.

:func:`tablezoo.tables.cluster.migrate` builds the configuration in code (no ``alembic.ini``)
and hands over an open SQLAlchemy connection as ``config.attributes["connection"]``.
"""

from __future__ import annotations

from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=None, transaction_per_migration=True)
with context.begin_transaction():
    context.run_migrations()
