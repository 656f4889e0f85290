"""An S3-compatible server for the tests: moto's, on 127.0.0.1 at a port of its own, checking every request's
signature against an access key it makes at start (so a wrong secret gets SignatureDoesNotMatch), with faults the
tests switch on per object path (a delay before the answer, a body cut after some bytes).

It prints one JSON line when ready: {"port", "accessKeyID", "secretAccessKey"}. Then it reads commands, one JSON
object per line on stdin, and answers each with one JSON line: {"op": "bucket", "bucket"}, {"op": "put", "bucket",
"key", "file", "contentType", "cacheControl"?} (written with boto3, not with the code under test), {"op": "get", "bucket", "key"}
(what boto3 reads back: size, content type, metadata), {"op": "fault", "path", "times", "delay"?, "drop_after"?},
{"op": "seen"} (every request so far: method, path, Range, traceparent). It stops when stdin closes.
"""

import json
import sys
import threading
import time

import boto3
from botocore.config import Config
from moto import settings
from moto.server import DomainDispatcherApplication, create_backend_app
from werkzeug.serving import make_server

backend = DomainDispatcherApplication(create_backend_app)
faults = {}
seen = []
lock = threading.Lock()


def app(environ, start_response):
    path = environ.get("PATH_INFO", "")
    with lock:
        seen.append(
            {
                "method": environ["REQUEST_METHOD"],
                "path": path,
                "range": environ.get("HTTP_RANGE"),
                "traceparent": environ.get("HTTP_TRACEPARENT"),
            }
        )
        fault = faults.get(path)
        if fault and fault.get("times", 0) > 0:
            fault["times"] -= 1
        else:
            fault = None
    if fault and fault.get("delay"):
        time.sleep(fault["delay"])
    if fault and fault.get("drop_after") is not None:
        answer = {}

        def keep(status, headers, exc_info=None):
            answer["head"] = (status, headers)

        body = b"".join(backend(environ, keep))
        start_response(*answer["head"])

        def cut():
            yield body[: fault["drop_after"]]
            raise ConnectionAbortedError("the test server drops the connection here")

        return cut()
    return backend(environ, start_response)


server = make_server("127.0.0.1", 0, app, threaded=True)
threading.Thread(target=server.serve_forever, daemon=True).start()
endpoint = f"http://127.0.0.1:{server.server_port}"

# Until the key exists moto lets requests in unchecked; from then on every request must be signed with it.
iam = boto3.client(
    "iam", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="setup", aws_secret_access_key="setup"
)
iam.create_user(UserName="kingfisher")
everything = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}
iam.put_user_policy(UserName="kingfisher", PolicyName="everything", PolicyDocument=json.dumps(everything))
key = iam.create_access_key(UserName="kingfisher")["AccessKey"]
settings.INITIAL_NO_AUTH_ACTION_COUNT = 0

s3 = boto3.client(
    "s3",
    endpoint_url=endpoint,
    region_name="us-east-1",
    aws_access_key_id=key["AccessKeyId"],
    aws_secret_access_key=key["SecretAccessKey"],
    config=Config(s3={"addressing_style": "path"}),
)
ready = {"port": server.server_port, "accessKeyID": key["AccessKeyId"], "secretAccessKey": key["SecretAccessKey"]}
print(json.dumps(ready), flush=True)

for line in sys.stdin:
    command = json.loads(line)
    answer = {"ok": True}
    try:
        op = command["op"]
        if op == "bucket":
            s3.create_bucket(Bucket=command["bucket"])
        elif op == "put":
            extra = {"CacheControl": command["cacheControl"]} if command.get("cacheControl") else {}
            with open(command["file"], "rb") as file:
                s3.put_object(
                    Bucket=command["bucket"],
                    Key=command["key"],
                    Body=file.read(),
                    ContentType=command.get("contentType", "application/octet-stream"),
                    **extra,
                )
        elif op == "get":
            got = s3.get_object(Bucket=command["bucket"], Key=command["key"])
            answer.update(
                size=len(got["Body"].read()), contentType=got.get("ContentType"), metadata=got.get("Metadata", {})
            )
        elif op == "fault":
            with lock:
                faults[command["path"]] = command
        elif op == "seen":
            with lock:
                answer["seen"] = list(seen)
        else:
            answer = {"ok": False, "error": f"unknown op {op}"}
    except Exception as error:  # the test reads the failure
        answer = {"ok": False, "error": str(error)}
    print(json.dumps(answer), flush=True)
server.shutdown()
