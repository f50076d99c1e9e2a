"""Validity: planted-gap targets whose knowledge is known by construction, how well a run recovers their
gaps, and an ability estimate with its standard error."""
from __future__ import annotations

from .gaps import Recovery, Weak, read_records, recovery, weak_documents, weak_entities
from .irt import DEFAULT_ITEMS, Ability, Item, calibrate, estimate, run_ability
from .scripted import ScriptedInterviewer
from .serve import chat_reply, serve_roles
from .target import ExactTarget, KnownDocuments, document_topics, select_documents

__all__ = ["DEFAULT_ITEMS", "Ability", "ExactTarget", "Item", "KnownDocuments", "Recovery", "ScriptedInterviewer",
           "Weak", "calibrate", "chat_reply", "document_topics", "estimate", "read_records", "recovery",
           "run_ability", "select_documents", "serve_roles", "weak_documents", "weak_entities"]
