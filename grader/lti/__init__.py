"""LTI 1.3 with Assignment and Grade Services: the course as a tool of a learning management system.

One module per job:

- :mod:`grader.lti.registration` the LMS platform this course is registered with (issuer, client id,
  deployment id, its endpoints), kept in the course's ``.grader/lti/``;
- :mod:`grader.lti.tool_keys` the tool's RSA key pair and its public JWKS;
- :mod:`grader.lti.platform_http` the few HTTP requests made to the platform, with their failures sorted into
  "refused" (the platform said no) and "unreachable" (try again later);
- :mod:`grader.lti.access_token` OAuth 2 client credentials with a signed JWT client assertion (RFC 7523);
- :mod:`grader.lti.ags` line items and scores (AGS 2.0);
- :mod:`grader.lti.journal` the passback journal: every score to post, posted once, failures kept;
- :mod:`grader.lti.hub_file` what the course hub serves: the public keys, the assignments for deep linking;
- :mod:`grader.lti.health` the passback in one line for ``grader doctor``;
- :mod:`grader.lti.command` ``grader lti``;
- :mod:`grader.lti.passback` what grading calls: record the new scores, post what is due.

Launches into the course hub are answered inside JupyterHub by :mod:`grader.hub.lti_login`.
"""
