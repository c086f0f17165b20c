#!/usr/bin/python3
"""A private Dovecot for BadgeKit's IMAP tests, and a client (imaplib) that changes its mail.

    imap-server.py setup FOLDER        config, passwd-file user alice, a self-signed certificate
                                       for localhost (FOLDER/cert.pem), two free loopback ports
                                       written to FOLDER/ports ("IMAPS IMAP"), the password to
                                       FOLDER/password; start with: dovecot -F -c FOLDER/dovecot.conf
    imap-server.py deliver FOLDER FROM SUBJECT [seen] [BOX]
    imap-server.py burst FOLDER COUNT  COUNT messages to INBOX on one connection, all with the
                                       same Date second (subjects "burst 1" … "burst COUNT")
    imap-server.py flags FOLDER UID [BOX]   prints the FLAGS of message UID (FETCH FLAGS)
    imap-server.py oauth2 FOLDER TOKEN  an oauth2 passdb (XOAUTH2, OAUTHBEARER) beside the passwords,
                                       whose token endpoint (a Python http.server on a free port,
                                       served until killed; FOLDER/oauth2-ready once it listens)
                                       accepts only TOKEN; the tokens asked about go to FOLDER/tokens-asked
    imap-server.py refusing-proxy FOLDER   a cleartext proxy to the IMAP port that answers every
                                       UID STORE itself with NO [NOPERM] (a read-only folder) and
                                       forwards the rest; its port in FOLDER/proxy-port; runs until killed
    imap-server.py store FOLDER FLAGS [UIDS] [BOX]    e.g. '\\Seen' or '\\Deleted' (UIDS: 1:*, BOX: INBOX)
    imap-server.py expunge FOLDER
    imap-server.py wait FOLDER         until both ports accept (at most 10 s) and the server
                                       on them is this one (its certificate, its password)
    imap-server.py ports FOLDER [IMAPS IMAP]   two new free ports (when another server took
                                       one), or these two

Run as root (CI), the login and mail processes take Dovecot's own users (dovenull, dovecot).
"""
import grp, imaplib, os, pwd, random, shutil, socket, ssl, subprocess, sys, time

def setup(d):
    for sub in ("run", "state", "home"):
        os.makedirs(os.path.join(d, sub), exist_ok=True)
    os.chmod(d, 0o755)
    if os.getuid() == 0:
        # Dovecot's auth and mail processes run as its own users: every folder above this one must
        # let them through, or every login fails later with "Temporary authentication failure".
        parent = os.path.dirname(d)
        while parent != os.path.dirname(parent):
            if not os.stat(parent).st_mode & 0o001:
                sys.exit("setup: %s (mode %o) does not let Dovecot's users (dovecot, dovenull) through to %s: "
                         "put the fixture's folder elsewhere (under /tmp)" % (parent, os.stat(parent).st_mode & 0o777, d))
            parent = os.path.dirname(parent)
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost", "-days", "2",
                    "-keyout", os.path.join(d, "key.pem"), "-out", os.path.join(d, "cert.pem")],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    root = os.getuid() == 0
    user = "dovecot" if root else pwd.getpwuid(os.getuid()).pw_name
    group = "dovecot" if root else grp.getgrgid(os.getgid()).gr_name
    if root:
        shutil.chown(os.path.join(d, "home"), "dovecot", "dovecot")
    password = "s3cret-%d-Pw" % random.randrange(1 << 30)
    with open(os.path.join(d, "passwd"), "w") as f:
        f.write("alice:{PLAIN}%s::::::\n" % password)
    with open(os.path.join(d, "password"), "w") as f:
        f.write(password)
    pick_ports(d)

def pick_ports(d, chosen=None):
    """Two free loopback ports (or the `chosen` two, for the fixture's own test), written to
    FOLDER/ports and into dovecot.conf. Picked last, right before the server starts: a port freed
    here can be taken by anyone until Dovecot binds it."""
    socks = [socket.socket() for _ in range(2)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    imaps, imap = chosen or (s.getsockname()[1] for s in socks)
    for s in socks:
        s.close()
    root = os.getuid() == 0
    user = "dovecot" if root else pwd.getpwuid(os.getuid()).pw_name
    group = "dovecot" if root else grp.getgrgid(os.getgid()).gr_name
    with open(os.path.join(d, "ports"), "w") as f:
        f.write("%d %d" % (imaps, imap))
    with open(os.path.join(d, "dovecot.conf"), "w") as f:
        f.write(f"""protocols = imap
listen = 127.0.0.1
base_dir = {d}/run
state_dir = {d}/state
log_path = {d}/dovecot.log
default_internal_user = {user}
default_internal_group = {group}
default_login_user = {"dovenull" if root else user}
first_valid_uid = 1
ssl = yes
ssl_cert = <{d}/cert.pem
ssl_key = <{d}/key.pem
ssl_min_protocol = TLSv1.2
disable_plaintext_auth = no
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {d}/passwd
}}
userdb {{
  driver = static
  args = uid={user} gid={group} home={d}/home/%u
}}
mail_location = maildir:~/Maildir
service imap-login {{
  chroot =
  inet_listener imap {{
    port = {imap}
  }}
  inet_listener imaps {{
    port = {imaps}
    ssl = yes
  }}
}}
service anvil {{
  chroot =
}}
service stats {{
  chroot =
}}
imap_idle_notify_interval = 2 mins
!include_try {d}/extra.conf
""")

def log_tail(d, lines=5):
    try:
        return " | ".join(open(os.path.join(d, "dovecot.log"), errors="replace").read().splitlines()[-lines:])
    except OSError as error:
        return "no dovecot.log (%s)" % error.strerror

def fail(d, what, error):
    """Exits with one line that says what failed, on which port, and what this server logged last:
    under load the usual cause is another server on a port this one never got."""
    imaps = open(os.path.join(d, "ports")).read().split()[0]
    sys.exit("%s: %s (the fixture's Dovecot on 127.0.0.1:%s; its log ends: %s)" % (what, error, imaps, log_tail(d)))

def client(d):
    imaps = int(open(os.path.join(d, "ports")).read().split()[0])
    context = ssl.create_default_context(cafile=os.path.join(d, "cert.pem"))
    try:
        c = imaplib.IMAP4_SSL("localhost", imaps, ssl_context=context, timeout=20)
    except ssl.SSLCertVerificationError as error:
        fail(d, "another server answers on this fixture's port (its certificate is not this fixture's)", error)
    except (OSError, imaplib.IMAP4.error) as error:
        fail(d, "cannot connect", error)
    try:
        c.login("alice", open(os.path.join(d, "password")).read())
    except (OSError, imaplib.IMAP4.error) as error:
        fail(d, "LOGIN refused", error)
    return c

def oauth2(d, token):
    import http.server, threading, json, urllib.parse
    class Endpoint(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode()
            asked = urllib.parse.parse_qs(body).get("token", [""])[0]
            with open(os.path.join(d, "tokens-asked"), "a") as f:
                f.write(asked + "\n")
            answer = {"active": True, "username": "alice"} if asked == token else {"active": False}
            data = json.dumps(answer).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        def log_message(self, *args):
            pass
    server = http.server.HTTPServer(("127.0.0.1", 0), Endpoint)
    port = server.server_address[1]
    with open(os.path.join(d, "oauth2.conf"), "w") as f:
        f.write("introspection_mode = post\nintrospection_url = http://127.0.0.1:%d/\nusername_attribute = username\n"
                "active_attribute = active\nactive_value = true\n" % port)
    with open(os.path.join(d, "extra.conf"), "w") as f:
        f.write("auth_mechanisms = plain login xoauth2 oauthbearer\nauth_failure_delay = 0\npassdb {\n  driver = oauth2\n  mechanisms = xoauth2 oauthbearer\n"
                "  args = %s/oauth2.conf\n}\n"
                # No growing delay after each refused token (the test refuses on purpose): the auth penalty is off.
                "service anvil {\n  unix_listener anvil-auth-penalty {\n    mode = 0\n  }\n}\n" % d)
    # Ready once FOLDER/oauth2-ready exists: the socket is bound, so requests wait for serve_forever.
    with open(os.path.join(d, "oauth2-ready"), "w") as f:
        f.write(str(port))
    server.serve_forever()

def refusing_proxy(d):
    import select
    target = int(open(os.path.join(d, "ports")).read().split()[1])
    listen = socket.socket(); listen.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listen.bind(("127.0.0.1", 0)); listen.listen(16)
    with open(os.path.join(d, "proxy-port.tmp"), "w") as f:
        f.write(str(listen.getsockname()[1]))
    os.rename(os.path.join(d, "proxy-port.tmp"), os.path.join(d, "proxy-port"))
    pairs, pending = {}, {}
    while True:
        ready, _, _ = select.select([listen] + list(pairs), [], [])
        for s in ready:
            if s is listen:
                client, _ = listen.accept()
                server = socket.create_connection(("127.0.0.1", target))
                pairs[client], pairs[server] = server, client
                pending[client] = b""
                continue
            if s not in pairs:
                continue
            try:
                data = s.recv(65536)
            except OSError:
                data = b""
            peer = pairs[s]
            if not data:
                for x in (s, peer):
                    pairs.pop(x, None); pending.pop(x, None); x.close()
                continue
            try:
                if s in pending:
                    pending[s] += data
                    while b"\n" in pending[s]:
                        line, pending[s] = pending[s].split(b"\n", 1)
                        words = line.split(b" ")
                        if len(words) > 2 and words[1].upper() == b"UID" and words[2].upper() == b"STORE":
                            s.sendall(words[0] + b" NO [NOPERM] read-only folder (the test's proxy)\r\n")
                        else:
                            peer.sendall(line + b"\n")
                else:
                    peer.sendall(data)
            except OSError:
                pass

def main():
    command, d = sys.argv[1], os.path.abspath(sys.argv[2])
    if command == "setup":
        setup(d)
    elif command == "wait":
        end = time.monotonic() + 10
        for port in map(int, open(os.path.join(d, "ports")).read().split()):
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if time.monotonic() > end:
                        sys.exit("port %d never accepted (the fixture's log ends: %s)" % (port, log_tail(d)))
                    time.sleep(0.05)
        # Accepting is not enough: the server on the port must be this one (another Dovecot may
        # have taken a port picked here before this one bound it; its certificate is not ours).
        client(d).logout()
    elif command == "oauth2":
        oauth2(d, sys.argv[3])
    elif command == "refusing-proxy":
        refusing_proxy(d)
    elif command == "ports":
        pick_ports(d, tuple(map(int, sys.argv[3:5])) if len(sys.argv) > 4 else None)
    elif command in ("deliver", "store", "expunge", "burst", "flags"):
        c = client(d)
        try:
            run(command, c)
        except (OSError, imaplib.IMAP4.error) as error:
            fail(d, command.upper() + " failed", error)
    else:
        sys.exit("unknown command " + command)

def run(command, c):
    if command == "burst":
        for n in range(1, int(sys.argv[3]) + 1):
            raw = ("From: Burst <burst@example.org>\r\nSubject: burst %d\r\nDate: Thu, 03 Dec 2026 06:00:00 +0000\r\n"
                   "Message-ID: <burst-%d-%d@example.org>\r\n\r\nbody\r\n" % (n, n, random.randrange(1 << 30))).encode()
            typ, data = c.append("INBOX", None, None, raw)
            if typ != "OK":
                raise imaplib.IMAP4.error("APPEND answered %s %s" % (typ, data))
        c.logout()
        return
    if command == "flags":
        c.select(sys.argv[4] if len(sys.argv) > 4 else "INBOX", readonly=True)
        typ, data = c.uid("FETCH", sys.argv[3], "(FLAGS)")
        if typ != "OK":
            raise imaplib.IMAP4.error("FETCH answered %s %s" % (typ, data))
        print(b" ".join(d for d in data if isinstance(d, bytes)).decode())
        c.logout()
        return
    if command == "deliver":
        sender, subject = sys.argv[3], sys.argv[4]
        seen = len(sys.argv) > 5 and sys.argv[5] == "seen"
        box = sys.argv[6] if len(sys.argv) > 6 else "INBOX"
        c.create(box)
        raw = ("From: %s\r\nSubject: %s\r\nDate: Thu, 03 Dec 2026 06:00:00 +0000\r\nMessage-ID: <%d@example.org>\r\n\r\nbody\r\n"
               % (sender, subject, random.randrange(1 << 30))).encode()
        typ, data = c.append(box, r"(\Seen)" if seen else None, None, raw)
    else:
        c.select(sys.argv[5] if command == "store" and len(sys.argv) > 5 else "INBOX")
        if command == "store":
            typ, data = c.uid("STORE", sys.argv[4] if len(sys.argv) > 4 else "1:*", "+FLAGS.SILENT", "(%s)" % sys.argv[3])
        else:
            typ, data = c.expunge()
    if typ != "OK":
        raise imaplib.IMAP4.error("%s answered %s %s" % (command.upper(), typ, data))
    c.logout()

main()
