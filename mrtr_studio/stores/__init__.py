"""Stores several `serve` nodes share, behind the engine's ports (`engine.shared_store.ReplayStore`,
`engine.tasks.store.TaskStore`): the engine never imports a database client, these adapters do."""
