#!/usr/bin/env python3
"""Signs requests with botocore, the AWS SDK's own Signature Version 4 signer, for the tests that
check Tessera's signer against it (Tests/TesseraPipelineTests/ObjectStorageTests.swift).

Reads a JSON list of requests on stdin, each
    {"method", "url", "headers": [[name, value], ...], "payloadHash", "amzDate": "20261124T050102Z",
     "accessKeyID", "secretAccessKey", "sessionToken" (or null), "region"}
and prints a JSON list of the Authorization header botocore computes for each. botocore signs
every header it is given (but User-Agent, Expect and X-Amzn-Trace-Id); the tests give it exactly
the headers Tessera signs.
"""
import datetime
import json
import sys
from unittest import mock

from botocore.auth import S3SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials


def authorization(case):
    request = AWSRequest(method=case["method"], url=case["url"], headers=dict(case["headers"]))
    request.headers["X-Amz-Content-SHA256"] = case["payloadHash"]
    moment = datetime.datetime.strptime(case["amzDate"], "%Y%m%dT%H%M%SZ")
    credentials = Credentials(case["accessKeyID"], case["secretAccessKey"], case.get("sessionToken"))
    signer = S3SigV4Auth(credentials, "s3", case["region"])
    # botocore reads the clock itself; the tests sign at a fixed moment. The headers are taken as
    # given (botocore would otherwise hash a body the script does not have).
    signer._modify_request_before_signing = lambda request: None
    request.headers["X-Amz-Date"] = case["amzDate"]
    if case.get("sessionToken"):
        request.headers["X-Amz-Security-Token"] = case["sessionToken"]
    with mock.patch("botocore.auth.get_current_datetime", return_value=moment):
        signer.add_auth(request)
    return request.headers["Authorization"]


if __name__ == "__main__":
    print(json.dumps([authorization(case) for case in json.load(sys.stdin)]))
