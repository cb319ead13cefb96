// The Go service of go.Dockerfile: it reads its secrets from its environment, where `cplane-reader run` put them,
// and is restarted by it when one is renewed. It never sees the reader's credential.
package main

import (
	"log"
	"net/http"
	"os"
)

func main() {
	token := os.Getenv("OPENAI_TOKEN") // the delivered gateway token; use it, never log it
	stripe := os.Getenv("STRIPE_KEY")
	if token == "" || stripe == "" {
		log.Fatal("OPENAI_TOKEN and STRIPE_KEY are required")
	}
	http.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok\n")) })
	log.Fatal(http.ListenAndServe(":8080", nil))
}
