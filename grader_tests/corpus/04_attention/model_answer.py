# The model answer, handed in by a student who solved every part.
# base: model
# kind: correct
