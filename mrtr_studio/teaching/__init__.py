"""Teaching: lessons, the attack lab, the task lab, eras side by side and the cluster, Qt-free; the views
that show them live in `ui/teaching/`. See docs/architecture.md."""
