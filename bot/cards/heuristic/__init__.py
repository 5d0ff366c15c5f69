"""A PR's card without a model, worded in the reader's language: the card (cards.py), its points
(file_points.py), and a shown reason read back to its sentence (point_names.py). The rules they
word are core/heuristic/'s, which hold no words.
"""
