package jobtls

import (
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/syncmodels/syncmodels/transport"
)

// uriScheme is the scheme of the URIs that name jobs and workers.
const uriScheme = "syncmodels"

// WorkerURI is the URI that names worker id of job in its certificate:
// syncmodels://job/<job>/worker/<id>.
func WorkerURI(job string, id transport.NodeID) *url.URL {
	return &url.URL{Scheme: uriScheme, Host: "job", Path: "/" + job + "/worker/" + strconv.Itoa(int(id))}
}

// Identity returns the job and the workers that cert names by its worker
// URIs (WorkerURI), in order; other URIs are ignored. A certificate with no
// worker URI, or with worker URIs of two jobs, is refused with
// ErrIdentity. Identity does not verify the certificate: the TLS handshake
// did.
func Identity(cert *x509.Certificate) (job string, workers []transport.NodeID, err error) {
	for _, u := range cert.URIs {
		if u.Scheme != uriScheme || u.Host != "job" {
			continue
		}
		j, rest, ok := strings.Cut(strings.TrimPrefix(u.Path, "/"), "/worker/")
		if !ok {
			continue
		}
		n, perr := strconv.ParseInt(rest, 10, 64)
		if perr != nil || n < 0 || n > int64(transport.MaxNode) || strconv.FormatInt(n, 10) != rest || checkJob(j) != nil {
			return "", nil, fmt.Errorf("jobtls: certificate %q: malformed worker URI %s: %w", cert.Subject.CommonName, u, ErrIdentity)
		}
		if job != "" && j != job {
			return "", nil, fmt.Errorf("jobtls: certificate %q names workers of jobs %q and %q: %w", cert.Subject.CommonName, job, j, ErrIdentity)
		}
		job = j
		workers = append(workers, transport.NodeID(n))
	}
	if len(workers) == 0 {
		return "", nil, fmt.Errorf("jobtls: certificate %q names no worker: %w", cert.Subject.CommonName, ErrIdentity)
	}
	return job, workers, nil
}

// tokenBytes is the length of a token's secret, in random bytes.
const tokenBytes = 32

// NewToken returns a new bearer token for job: "<job>.<secret>", the
// secret 32 bytes from crypto/rand in unpadded base64url.
func NewToken(job string) (string, error) {
	if err := checkJob(job); err != nil {
		return "", err
	}
	b := make([]byte, tokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("jobtls: token: %w", err)
	}
	return job + "." + base64.RawURLEncoding.EncodeToString(b), nil
}

// TokenJob returns the job that a token made by NewToken names, or
// ErrIdentity if token does not have that form. It does not authenticate
// anything: compare the whole token with the job's.
func TokenJob(token string) (string, error) {
	i := strings.LastIndexByte(token, '.')
	if i < 0 {
		return "", fmt.Errorf("jobtls: a token has the form <job>.<secret>: %w", ErrIdentity)
	}
	job, secret := token[:i], token[i+1:]
	if checkJob(job) != nil || base64.RawURLEncoding.EncodedLen(tokenBytes) != len(secret) {
		return "", fmt.Errorf("jobtls: a token has the form <job>.<secret>: %w", ErrIdentity)
	}
	if _, err := base64.RawURLEncoding.DecodeString(secret); err != nil {
		return "", fmt.Errorf("jobtls: token secret is not base64url: %w", ErrIdentity)
	}
	return job, nil
}

// ServerTLS returns the TLS configuration of a job's server: it presents
// cert, requires TLS 1.3, and requires and verifies a client certificate
// issued by a CA in roots (the job CA's Pool).
func ServerTLS(cert tls.Certificate, roots *x509.CertPool) *tls.Config {
	return &tls.Config{
		Certificates: []tls.Certificate{cert},
		ClientAuth:   tls.RequireAndVerifyClientCert,
		ClientCAs:    roots,
		MinVersion:   tls.VersionTLS13,
	}
}

// ClientTLS returns the TLS configuration of a job's worker: it presents
// cert, requires TLS 1.3, and trusts only servers whose certificate was
// issued by a CA in roots. The server's name is the one dialled (gRPC
// takes it from the target) unless serverName is not empty.
func ClientTLS(cert tls.Certificate, roots *x509.CertPool, serverName string) *tls.Config {
	return &tls.Config{
		Certificates: []tls.Certificate{cert},
		RootCAs:      roots,
		ServerName:   serverName,
		MinVersion:   tls.VersionTLS13,
	}
}
