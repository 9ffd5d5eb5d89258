"""The resource quota sets of the 8.1.9 reference transcript (resource_quotas.txt), as
`qconf -srqs` prints them: shared by the format, verb and end-to-end tests."""

RQS_ALL = """\
{
   name         maxujobs
   description  "max 20 slots per user"
   enabled      TRUE
   limit        users * to slots=20
}
{
   name         max_linux
   description  NONE
   enabled      TRUE
   limit        users * hosts @linux to slots=5
}
{
   name         max_per_host
   description  NONE
   enabled      TRUE
   limit        users roland hosts {@linux} to slots=2
   limit        users {*} hosts {@linux} to slots=1
   limit        users * hosts * to slots=0
}
"""
