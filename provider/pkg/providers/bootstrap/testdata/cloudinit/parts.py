# Splits a userdata file the way cloud-init does before it runs any part: its own
# UserDataProcessor inflates gzip, reads MIME multipart archives (only when "MIME-Version:"
# appears in the first 4096 bytes), decodes transfer encodings, inflates gzip parts and types
# every part by its Content-Type or, for text/plain, text/x-not-multipart and
# text/x-shellscript, by its first line. Prints the parts as JSON: [{"type", "payload"}].
#
# Run with the Python interpreter of the cloud-init executable (its shebang), so that the
# packaged cloudinit library is the one imported.
import json
import sys
import tempfile

from cloudinit import helpers, user_data, util


def main(path):
    with tempfile.TemporaryDirectory() as tmp:
        paths = helpers.Paths({"cloud_dir": tmp, "run_dir": tmp})
        message = user_data.UserDataProcessor(paths).process(util.load_file(path, decode=False))
    parts = []
    for part in message.walk():
        if user_data.is_skippable(part):
            continue
        payload = util.fully_decoded_payload(part)
        if isinstance(payload, bytes):
            payload = payload.decode("utf-8", errors="replace")
        parts.append({"type": part.get_content_type(), "payload": payload})
    json.dump(parts, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1])
