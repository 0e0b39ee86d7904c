"""The embedding parameters of a model: what Kaplan's N leaves out (the `embeddings: exclude` convention).

A module of its own because both the asks (the value) and the training derivations (the worked
solution) need it, and neither may import the other.
"""

from __future__ import annotations

from quizapp.memory.errors import SetupError


def embedding_params(model) -> int:
    """The token (and learned position) embeddings and an untied LM head: what Kaplan's N leaves out."""
    if not model.has_shape:
        raise SetupError("embeddings", "a bare parameter count has no embedding matrix to leave out; give a shape or preset")
    count = model.vocab * model.hidden * (1 if model.tied else 2)
    if model.positions:
        count += model.positions * model.hidden
    return count
