package jobtls

import (
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/syncmodels/syncmodels/transport"
)

// File names in a job's directory (see the package doc).
const (
	CAFile         = "ca.pem"
	CAKeyFile      = "ca-key.pem"
	ServerFile     = "server.pem"
	ServerKeyFile  = "server-key.pem"
	TokenFile      = "token"
	workerFile     = "worker-%d.pem"
	workerKeyFile  = "worker-%d-key.pem"
	maxWorkers     = 1 << 16
	certMode       = 0o644
	secretMode     = 0o600
	dirMode        = 0o700
	pemCertificate = "CERTIFICATE"
	pemKey         = "PRIVATE KEY"
)

// WorkerFiles returns the names of worker id's certificate and key files.
func WorkerFiles(id transport.NodeID) (cert, key string) {
	return fmt.Sprintf(workerFile, int(id)), fmt.Sprintf(workerKeyFile, int(id))
}

// Credentials are what a coordinator or a worker needs to take part in a
// job: grpcnet.Config's Token and TLS.
type Credentials struct {
	// Job is the job's name.
	Job string
	// Token is the job's bearer token.
	Token string
	// TLS is the TLS configuration: ServerTLS for the coordinator,
	// ClientTLS for a worker.
	TLS *tls.Config
}

// Create creates a job's credentials in dir (created if missing): a new
// CA for job, a server certificate for hosts (see IssueServer), a
// certificate for each of the workers 0 … workers−1, and a token; see the
// package doc for the files. It refuses, with an error wrapping
// fs.ErrExist, a directory that already holds a CA, and a job name, a
// host or a number of workers (at most 65536) that is not valid, with
// ErrConfig, before writing anything.
func Create(dir, job string, workers int, hosts []string) error {
	if err := checkJob(job); err != nil {
		return err
	}
	if workers < 0 || workers > maxWorkers {
		return fmt.Errorf("jobtls: create %s: %d workers: want 0 to %d: %w", dir, workers, maxWorkers, ErrConfig)
	}
	if len(hosts) == 0 {
		return fmt.Errorf("jobtls: create %s: no server host names or addresses: %w", dir, ErrConfig)
	}
	if _, err := os.Stat(filepath.Join(dir, CAFile)); err == nil {
		return fmt.Errorf("jobtls: create %s: it holds a job CA already (%s): %w", dir, CAFile, fs.ErrExist)
	}
	ca, err := NewCA(job)
	if err != nil {
		return err
	}
	srv, err := ca.IssueServer(hosts...)
	if err != nil {
		return err
	}
	token, err := NewToken(job)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, dirMode); err != nil {
		return fmt.Errorf("jobtls: create: %w", err)
	}
	if err := writeKey(dir, CAKeyFile, ca.Key); err != nil {
		return err
	}
	if err := writePair(dir, ServerFile, ServerKeyFile, srv); err != nil {
		return err
	}
	if err := writeFile(dir, TokenFile, []byte(token+"\n"), secretMode); err != nil {
		return err
	}
	for id := range transport.NodeID(workers) {
		if err := ca.WriteWorker(dir, id); err != nil {
			return err
		}
	}
	return writeFile(dir, CAFile, certPEM(ca.Cert.Raw), certMode)
}

// WriteWorker issues a certificate for worker id and writes it, and its
// key, into dir (replacing those of an earlier one): a worker added to a
// job after Create.
func (ca *CA) WriteWorker(dir string, id transport.NodeID) error {
	c, err := ca.IssueWorker(id)
	if err != nil {
		return err
	}
	cf, kf := WorkerFiles(id)
	return writePair(dir, cf, kf, c)
}

// LoadCA reads the job CA from dir, with its key: to issue more
// certificates (WriteWorker).
func LoadCA(dir string) (*CA, error) {
	cert, err := readCert(filepath.Join(dir, CAFile))
	if err != nil {
		return nil, err
	}
	job, err := caJob(cert)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(dir, CAKeyFile))
	if err != nil {
		return nil, fmt.Errorf("jobtls: %w", err)
	}
	blk, _ := pem.Decode(b)
	if blk == nil || blk.Type != pemKey {
		return nil, fmt.Errorf("jobtls: %s: no %s PEM block", filepath.Join(dir, CAKeyFile), pemKey)
	}
	k, err := x509.ParsePKCS8PrivateKey(blk.Bytes)
	if err != nil {
		return nil, fmt.Errorf("jobtls: %s: %w", filepath.Join(dir, CAKeyFile), err)
	}
	signer, ok := k.(crypto.Signer)
	if !ok || !publicEqual(signer.Public(), cert.PublicKey) {
		return nil, fmt.Errorf("jobtls: %s is not the key of %s", filepath.Join(dir, CAKeyFile), filepath.Join(dir, CAFile))
	}
	return &CA{Job: job, Cert: cert, Key: signer}, nil
}

// LoadServer reads the coordinator's credentials from dir: ca.pem,
// server.pem, server-key.pem and token, with a ServerTLS configuration.
func LoadServer(dir string) (*Credentials, error) {
	pool, job, token, err := loadCommon(dir)
	if err != nil {
		return nil, err
	}
	cert, err := tls.LoadX509KeyPair(filepath.Join(dir, ServerFile), filepath.Join(dir, ServerKeyFile))
	if err != nil {
		return nil, fmt.Errorf("jobtls: server certificate in %s: %w", dir, err)
	}
	if _, err := cert.Leaf.Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
		return nil, fmt.Errorf("jobtls: %s: %w", filepath.Join(dir, ServerFile), err)
	}
	return &Credentials{Job: job, Token: token, TLS: ServerTLS(cert, pool)}, nil
}

// LoadWorker reads worker id's credentials from dir: ca.pem, its
// certificate and key (WorkerFiles) and token, with a ClientTLS
// configuration that takes the server's name from the dialled target. The
// certificate must name worker id of the token's job.
func LoadWorker(dir string, id transport.NodeID) (*Credentials, error) {
	pool, job, token, err := loadCommon(dir)
	if err != nil {
		return nil, err
	}
	cf, kf := WorkerFiles(id)
	cert, err := tls.LoadX509KeyPair(filepath.Join(dir, cf), filepath.Join(dir, kf))
	if err != nil {
		return nil, fmt.Errorf("jobtls: worker %d's certificate in %s: %w", int(id), dir, err)
	}
	if _, err := cert.Leaf.Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		return nil, fmt.Errorf("jobtls: %s: %w", filepath.Join(dir, cf), err)
	}
	cj, ids, err := Identity(cert.Leaf)
	if err != nil {
		return nil, fmt.Errorf("jobtls: %s: %w", filepath.Join(dir, cf), err)
	}
	if cj != job || !slices.Contains(ids, id) {
		return nil, fmt.Errorf("jobtls: %s names workers %v of job %q, not worker %d of job %q: %w", filepath.Join(dir, cf), ids, cj, int(id), job, ErrIdentity)
	}
	return &Credentials{Job: job, Token: token, TLS: ClientTLS(cert, pool, "")}, nil
}

// loadCommon reads the CA and the token, and checks that they are of one
// job.
func loadCommon(dir string) (pool *x509.CertPool, job, token string, err error) {
	ca, err := readCert(filepath.Join(dir, CAFile))
	if err != nil {
		return nil, "", "", err
	}
	if job, err = caJob(ca); err != nil {
		return nil, "", "", err
	}
	b, err := os.ReadFile(filepath.Join(dir, TokenFile))
	if err != nil {
		return nil, "", "", fmt.Errorf("jobtls: %w", err)
	}
	token = strings.TrimSpace(string(b))
	tj, err := TokenJob(token)
	if err != nil {
		return nil, "", "", fmt.Errorf("jobtls: %s: %w", filepath.Join(dir, TokenFile), err)
	}
	if tj != job {
		return nil, "", "", fmt.Errorf("jobtls: %s is a token of job %q, %s the CA of job %q: %w", filepath.Join(dir, TokenFile), tj, filepath.Join(dir, CAFile), job, ErrIdentity)
	}
	pool = x509.NewCertPool()
	pool.AddCert(ca)
	return pool, job, token, nil
}

// caJob returns the job a CA certificate names (syncmodels://job/<job>).
func caJob(cert *x509.Certificate) (string, error) {
	for _, u := range cert.URIs {
		if u.Scheme == uriScheme && u.Host == "job" {
			if j := strings.TrimPrefix(u.Path, "/"); checkJob(j) == nil {
				return j, nil
			}
		}
	}
	return "", fmt.Errorf("jobtls: certificate %q is not a job CA (no URI %s://job/<job>): %w", cert.Subject.CommonName, uriScheme, ErrIdentity)
}

// readCert reads the one certificate of a PEM file.
func readCert(path string) (*x509.Certificate, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("jobtls: %w", err)
	}
	blk, _ := pem.Decode(b)
	if blk == nil || blk.Type != pemCertificate {
		return nil, fmt.Errorf("jobtls: %s: no %s PEM block", path, pemCertificate)
	}
	c, err := x509.ParseCertificate(blk.Bytes)
	if err != nil {
		return nil, fmt.Errorf("jobtls: %s: %w", path, err)
	}
	return c, nil
}

func publicEqual(a, b crypto.PublicKey) bool {
	e, ok := a.(interface{ Equal(crypto.PublicKey) bool })
	return ok && e.Equal(b)
}

func certPEM(der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: pemCertificate, Bytes: der})
}

// writePair writes a certificate and its key.
func writePair(dir, certName, keyName string, c tls.Certificate) error {
	signer, ok := c.PrivateKey.(crypto.Signer)
	if !ok {
		return fmt.Errorf("jobtls: %s: the key is a %T, not a crypto.Signer", certName, c.PrivateKey)
	}
	if err := writeKey(dir, keyName, signer); err != nil {
		return err
	}
	return writeFile(dir, certName, certPEM(c.Certificate[0]), certMode)
}

// writeKey writes a private key, PKCS #8 in PEM, mode 0600.
func writeKey(dir, name string, k crypto.Signer) error {
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		return fmt.Errorf("jobtls: %s: %w", name, err)
	}
	return writeFile(dir, name, pem.EncodeToMemory(&pem.Block{Type: pemKey, Bytes: der}), secretMode)
}

// writeFile writes b to dir/name atomically: a temporary file in dir
// (mode set before anything is written), fsync, rename, fsync of dir. A
// failure leaves the old file, if any, as it was.
func writeFile(dir, name string, b []byte, mode os.FileMode) (err error) {
	path := filepath.Join(dir, name)
	f, err := os.CreateTemp(dir, "."+name+".tmp*")
	if err != nil {
		return fmt.Errorf("jobtls: write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
			err = fmt.Errorf("jobtls: write %s: %w", path, err)
		}
	}()
	if err = f.Chmod(mode); err != nil {
		return err
	}
	if _, err = f.Write(b); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}
