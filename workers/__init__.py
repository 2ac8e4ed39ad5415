"""RQ jobs: AI turns, deadlines, notifications (to come: issue "AI opponents")."""
