"""The web interface (`gridd web`): a client of the master in the browser's place.

Starlette on Hypercorn's trio worker, Jinja2 templates and a small script of our own:
nothing is fetched at run time. A browser user is whoever the master says their login
token is (gridd.login_token); every request they make is the master's request of that
user (AsUser), with the rights the commands give them.
"""
