"""The languages a student reads the course's pages and notebooks in: the message catalogues
(:mod:`grader.language.catalogue`), which language each student reads
(:mod:`grader.language.student_language`), the catalogue of the notebooks' prose
(:mod:`grader.language.notebook_catalogue`, delivered by the students' fetch in
:mod:`notebook_language`) and the ``grader translate`` command (:mod:`grader.language.translate_command`).

The grading side decides a student's language from the course's own records (the roster the
instructor gave, else the course's default); nothing the student's kernel writes can change it.
"""
