// Package jobtls creates and loads a training job's credentials: a
// certificate authority of its own (the job CA), a certificate for the
// coordinator's server, one client certificate per worker, and a bearer
// token. Package grpcnet uses them for mutual TLS 1.3 and token
// authentication; everything here is standard-library crypto (crypto/x509,
// crypto/ecdsa).
//
// # Worker identity
//
// A worker's certificate names the job and the worker in a URI subject
// alternative name,
//
//	syncmodels://job/<job>/worker/<id>
//
// (its common name, "worker-<id>", is for people and is never read).
// Identity returns the job and the workers a certificate names; the
// coordinator's server refuses a worker's stream unless the certificate
// the worker presented names it. A certificate may name several workers
// (IssueWorker(0, 1, 2)): one process hosting several workers on one
// connection presents one certificate.
//
// # Tokens
//
// A job's bearer token is "<job>.<secret>", the secret 32 random bytes in
// unpadded base64url (43 characters). The job prefix is not secret: it lets
// a server tell a token of another job (a worker pointed at the wrong
// coordinator) from a wrong one. Tokens are compared in constant time
// (see grpcnet).
//
// # Keys and validity
//
// Keys are ECDSA P-256. Certificates are valid from one hour before their
// creation (to tolerate clock skew between hosts) for Validity. The CA may
// sign leaves only (path length 0); the server's certificate is for server
// authentication, a worker's for client authentication. TLS
// configurations (ServerTLS, ClientTLS) require TLS 1.3, and the server's
// requires and verifies a client certificate issued by the job CA.
//
// # Files
//
// Create writes a job's credentials into a directory, one PEM file each:
//
//	ca.pem                 the job CA's certificate (everyone needs it)
//	ca-key.pem             its key (only to issue more certificates: keep it off worker hosts)
//	server.pem             the coordinator's certificate
//	server-key.pem         its key
//	worker-<id>.pem        worker id's certificate, for id in [0, workers)
//	worker-<id>-key.pem    its key
//	token                  the job's bearer token
//
// Keys and the token are written with mode 0600, certificates 0644, the
// directory is created 0700. Every file is written atomically (a temporary
// file in the same directory, fsync, rename, fsync of the directory) and
// ca.pem last, so a directory with ca.pem is complete; Create refuses a
// directory that has one. LoadServer and LoadWorker read what a
// coordinator and a worker need: a worker host needs only ca.pem, its own
// certificate and key, and the token.
package jobtls
