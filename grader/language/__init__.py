"""The languages a student reads the course's pages in: the message catalogues
(:mod:`grader.language.catalogue`) and which language each student reads
(:mod:`grader.language.student_language`).

The grading side decides a student's language from the course's own records (the roster the
instructor gave, else the course's default); nothing the student's kernel writes can change it.
"""
