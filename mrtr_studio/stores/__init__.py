"""Stores several `serve` nodes share, behind the engine's ports (`engine.shared_store.ReplayStore`,
`engine.tasks.task_store.TaskStore`): the engine never imports a database client, these adapters do."""
