"""The dense opinion (decision 0181): a sentence-embedding model's cosine between a prompt and
each skill, weighed by the gate beside the lexical evidence. The model runs in a resident
process (:mod:`pokayokay.skills.dense_service`), never in a hook; the hook asks it
(:mod:`.client`) and decides without it when it does not answer in time. Installed with
``pokayokay[dense]``."""
