package jobtls

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/syncmodels/syncmodels/transport"
)

// Validity is how long a certificate issued here is valid, counted from
// its creation: 90 days (jobs are shorter; a new job gets a new CA).
const Validity = 90 * 24 * time.Hour

// skew is how far before its creation a certificate becomes valid, so that
// a host whose clock is a little behind accepts it.
const skew = time.Hour

// maxJob is the longest job name.
const maxJob = 63

// Errors.
var (
	// ErrConfig reports an invalid argument: a job name, a worker ID, a
	// host name.
	ErrConfig = errors.New("jobtls: invalid argument")
	// ErrIdentity reports a certificate that names no worker of a job, or
	// a malformed token.
	ErrIdentity = errors.New("jobtls: no worker identity")
)

// CA is a job's certificate authority.
type CA struct {
	// Job is the job's name.
	Job string
	// Cert is the CA's self-signed certificate.
	Cert *x509.Certificate
	// Key is the CA's private key.
	Key crypto.Signer
}

// NewCA creates a certificate authority for job, with a new ECDSA P-256
// key. A job name is 1 to 63 characters from [A-Za-z0-9._-] that starts
// with a letter or a digit; anything else is refused with ErrConfig.
func NewCA(job string) (*CA, error) {
	if err := checkJob(job); err != nil {
		return nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("jobtls: CA key: %w", err)
	}
	tmpl, err := template(time.Now())
	if err != nil {
		return nil, err
	}
	tmpl.Subject = pkix.Name{CommonName: "syncmodels job " + job + " CA", Organization: []string{"syncmodels job " + job}}
	tmpl.IsCA = true
	tmpl.BasicConstraintsValid = true
	tmpl.MaxPathLenZero = true
	tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature
	tmpl.URIs = []*url.URL{{Scheme: uriScheme, Host: "job", Path: "/" + job}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, fmt.Errorf("jobtls: CA certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("jobtls: CA certificate: %w", err)
	}
	return &CA{Job: job, Cert: cert, Key: key}, nil
}

// Pool returns a certificate pool holding only the CA's certificate: the
// roots a job's server and workers trust.
func (ca *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.Cert)
	return p
}

// IssueServer issues a certificate for the coordinator's server, valid for
// hosts: IP addresses ("127.0.0.1", "10.0.0.5", "::1") and DNS names
// ("localhost", "coordinator.job.svc"); a worker dialling the server by
// any of them verifies it. hosts must not be empty.
func (ca *CA) IssueServer(hosts ...string) (tls.Certificate, error) {
	if len(hosts) == 0 {
		return tls.Certificate{}, fmt.Errorf("jobtls: server certificate: no host names or addresses: %w", ErrConfig)
	}
	tmpl, err := template(time.Now())
	if err != nil {
		return tls.Certificate{}, err
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
			continue
		}
		if err := checkHost(h); err != nil {
			return tls.Certificate{}, err
		}
		tmpl.DNSNames = append(tmpl.DNSNames, h)
	}
	tmpl.Subject = pkix.Name{CommonName: hosts[0], Organization: []string{"syncmodels job " + ca.Job}}
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	return ca.issue(tmpl)
}

// IssueWorker issues a client certificate for the workers ids (usually
// one), each named by a URI SAN syncmodels://job/<job>/worker/<id>. IDs
// must be in [0, transport.MaxNode]; ids must not be empty.
func (ca *CA) IssueWorker(ids ...transport.NodeID) (tls.Certificate, error) {
	if len(ids) == 0 {
		return tls.Certificate{}, fmt.Errorf("jobtls: worker certificate: no worker IDs: %w", ErrConfig)
	}
	tmpl, err := template(time.Now())
	if err != nil {
		return tls.Certificate{}, err
	}
	names := make([]string, len(ids))
	for i, id := range ids {
		if id < 0 || id > transport.MaxNode {
			return tls.Certificate{}, fmt.Errorf("jobtls: worker certificate: %d is not a worker ID in [0, %d]: %w", int(id), int(transport.MaxNode), ErrConfig)
		}
		tmpl.URIs = append(tmpl.URIs, WorkerURI(ca.Job, id))
		names[i] = strconv.Itoa(int(id))
	}
	tmpl.Subject = pkix.Name{CommonName: "worker-" + strings.Join(names, ","), Organization: []string{"syncmodels job " + ca.Job}}
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	return ca.issue(tmpl)
}

// issue signs tmpl, with a new key, by the CA.
func (ca *CA) issue(tmpl *x509.Certificate) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("jobtls: key: %w", err)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, key.Public(), ca.Key)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("jobtls: certificate %q: %w", tmpl.Subject.CommonName, err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("jobtls: certificate %q: %w", tmpl.Subject.CommonName, err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, nil
}

// template is a certificate template with a random serial number, valid
// from now−skew for Validity.
func template(now time.Time) (*x509.Certificate, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, fmt.Errorf("jobtls: serial number: %w", err)
	}
	return &x509.Certificate{
		SerialNumber: serial,
		NotBefore:    now.Add(-skew),
		NotAfter:     now.Add(Validity),
	}, nil
}

// checkJob checks a job name.
func checkJob(job string) error {
	ok := len(job) >= 1 && len(job) <= maxJob && isAlnum(job[0])
	for i := 0; ok && i < len(job); i++ {
		c := job[i]
		ok = isAlnum(c) || c == '.' || c == '_' || c == '-'
	}
	if !ok {
		return fmt.Errorf("jobtls: job name %q: want 1 to %d characters from [A-Za-z0-9._-], starting with a letter or digit: %w", job, maxJob, ErrConfig)
	}
	return nil
}

// checkHost checks a DNS name for a server certificate.
func checkHost(h string) error {
	ok := len(h) >= 1 && len(h) <= 253 && h[0] != '.' && h[len(h)-1] != '.' && !strings.Contains(h, "..")
	for i := 0; ok && i < len(h); i++ {
		c := h[i]
		ok = isAlnum(c) || c == '.' || c == '-' || (c == '*' && i == 0 && strings.HasPrefix(h, "*."))
	}
	if !ok {
		return fmt.Errorf("jobtls: server host %q is neither an IP address nor a DNS name: %w", h, ErrConfig)
	}
	return nil
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
