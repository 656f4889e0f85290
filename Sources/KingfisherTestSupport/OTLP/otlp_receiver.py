"""An OTLP/HTTP trace receiver for the tests: it takes what an exporter POSTs to /v1/traces (protobuf, or JSON),
decodes it with OpenTelemetry's own protobufs, and keeps every span.

It prints one JSON line when ready: {"port"}. Then it reads commands, one JSON object per line on stdin, and
answers each with one JSON line: {"op": "spans"} gives every span received so far, each {"traceId", "spanId",
"parentSpanId" (hex, "" for a root), "name", "kind", "service", "attributes"}. It stops when stdin closes.
"""

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

spans = []
lock = threading.Lock()


def value(any_value):
    kind = any_value.WhichOneof("value")
    if kind == "array_value":
        return [value(item) for item in any_value.array_value.values]
    return getattr(any_value, kind) if kind else None


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        request = ExportTraceServiceRequest()
        if "json" in self.headers.get("Content-Type", ""):
            json_format.Parse(body, request)
        else:
            request.ParseFromString(body)
        received = []
        for resource_spans in request.resource_spans:
            resource = {item.key: value(item.value) for item in resource_spans.resource.attributes}
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    received.append(
                        {
                            "traceId": span.trace_id.hex(),
                            "spanId": span.span_id.hex(),
                            "parentSpanId": span.parent_span_id.hex(),
                            "name": span.name,
                            "kind": span.kind,
                            "service": resource.get("service.name"),
                            "attributes": {item.key: value(item.value) for item in span.attributes},
                        }
                    )
        with lock:
            spans.extend(received)
        answer = ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *arguments):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
threading.Thread(target=server.serve_forever, daemon=True).start()
print(json.dumps({"port": server.server_port}), flush=True)
for line in sys.stdin:
    command = json.loads(line)
    if command.get("op") == "spans":
        with lock:
            print(json.dumps({"ok": True, "spans": list(spans)}), flush=True)
    else:
        print(json.dumps({"ok": False, "error": "unknown op"}), flush=True)
server.shutdown()
