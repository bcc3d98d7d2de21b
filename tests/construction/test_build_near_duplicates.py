"""The local near-duplicate filter: n-gram Jaccard, MinHash + LSH and embedding cosine."""

import numpy as np

from socialbench.construction.near_duplicates import jaccard, near_duplicates, shingles


def test_ngram_filter_removes_near_copies_only():
    texts = [
        "The robot waits by the door while a guest carries heavy bags into the lobby.",
        "A child cries in the supermarket aisle while the parent is on the phone.",
        "The robot waits near the door while a guest carries heavy bags into the hotel lobby.",
    ]
    res = near_duplicates(texts, threshold=0.5)
    assert res.keep == (0, 1)
    i, j, sim = res.removed[0]
    assert (i, j) == (2, 0) and sim == round(jaccard(shingles(texts[0]), shingles(texts[2])), 4)


def test_minhash_finds_the_same_duplicates_as_exact_ngram():
    rng = np.random.default_rng(3)
    words = [f"w{i}" for i in range(400)]
    texts = [" ".join(rng.choice(words, 40)) for _ in range(60)]
    texts += [t + " extra" for t in texts[:5]]
    exact = near_duplicates(texts, threshold=0.6, method="ngram")
    approx = near_duplicates(texts, threshold=0.6, method="minhash")
    assert exact.removed == approx.removed and len(exact.removed) == 5


def test_embedding_filter_uses_cosine_of_given_vectors():
    vecs = {"a": [1.0, 0.0], "b": [0.99, 0.1], "c": [0.0, 1.0]}
    res = near_duplicates(
        ["a", "b", "c"], threshold=0.95, method="embedding", embed=lambda ts: np.array([vecs[t] for t in ts])
    )
    assert res.keep == (0, 2) and res.removed[0][:2] == (1, 0)
