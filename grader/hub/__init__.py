"""A complete local course hub: JupyterHub, real accounts, the exchange and ``grader watch``.

    grader hub up [--students N] [--root DIR]     start everything; Ctrl-C / SIGTERM tears it down
    grader hub down [--root DIR]                  tear down what a killed ``up`` left behind

Modules, one job each:

- :mod:`grader.hub.preflight`: what the machine lacks (root, useradd, npm, PAM, a shared Python);
- :mod:`grader.hub.environment`: the students' Python environment and configurable-http-proxy,
  built once into a cache folder and reused;
- :mod:`grader.hub.layout`: where everything of one hub lives;
- :mod:`grader.hub.accounts`: the instructor's and the students' Unix accounts and passwords;
- :mod:`grader.hub.jupyter_config`: the hub's ``jupyterhub_config.py`` and the per-role Jupyter
  config folders (which nbgrader extensions each role sees, the exchange);
- :mod:`grader.hub.course_page`: the students' course page, a Jupyter server extension copied into
  their environment (assignments, hand-ins newest first, feedback one click away);
- :mod:`grader.hub.lifecycle`: bringing the hub up (course, release, processes) and down;
- :mod:`grader.hub.command`: the ``grader hub`` command line.
"""
