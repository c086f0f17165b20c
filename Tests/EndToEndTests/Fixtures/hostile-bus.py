#!/usr/bin/env python3
"""A D-Bus endpoint that misbehaves in one chosen way, for the fault-injection tests.

usage: hostile-bus.py MODE SOCKET-PATH

Listens on the Unix socket SOCKET-PATH, prints "ready" on standard output once it does, and then
treats every client as MODE says:
  never-accepts   never calls accept() (clients sit in the backlog)
  silent          accepts and reads, never writes a byte
  garbage         accepts and answers anything with bytes that are not D-Bus
  auth-silent     completes the SASL exchange (OK), then never answers a message (Hello waits)
  refuses         rejects every authentication (REJECTED ANONYMOUS), as a bus that only allows
                  another mechanism or another user does
  closes-mid-call completes SASL, then closes the connection when the first message (Hello) arrives
Runs until killed.
"""
import os
import select
import socket
import sys

mode, path = sys.argv[1], sys.argv[2]
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind(path)
server.listen(64)
print("ready", flush=True)

if mode == "never-accepts":
    while True:
        select.select([], [], [])

clients = {}  # socket -> [phase, bytes received in that phase]


def handle(client):
    try:
        data = client.recv(65536)
    except OSError:
        data = b""
    if not data:
        client.close()
        del clients[client]
        return
    state = clients[client]
    state[1] += data
    if mode == "silent":
        return
    if mode == "garbage":
        client.sendall(b"\xff\xfeHTTP/1.1 418 I'm a teapot\r\n\x00\x01garbage" * 4)
        return
    if state[0] == "auth":
        if b"AUTH" in state[1] and b"\r\n" in state[1]:
            if mode == "refuses":
                client.sendall(b"REJECTED ANONYMOUS\r\n")
                state[1] = b""
            else:
                client.sendall(b"OK 0123456789abcdef0123456789abcdef\r\n")
                state[0], state[1] = "begin", b""
        return
    if state[0] == "begin" and b"BEGIN\r\n" in state[1]:
        state[0], state[1] = "messages", state[1].split(b"BEGIN\r\n", 1)[1]
    if state[0] == "messages" and state[1] and mode == "closes-mid-call":
        client.close()
        del clients[client]


while True:
    readable, _, _ = select.select([server] + list(clients), [], [])
    for sock in readable:
        if sock is server:
            client, _ = server.accept()
            clients[client] = ["auth", b""]
        elif sock in clients:
            handle(sock)
