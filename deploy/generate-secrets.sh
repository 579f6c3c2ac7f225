#!/usr/bin/env bash
# Writes every key and secret the two services need into DIR (default /etc/acdp), readable by their owner only
# (files 0600, DIR/keys 0700):
#   DIR/registry.secrets.env        ACDP_REGISTRY_* secrets: metrics bearer, search-cursor key, webhook HMAC secret
#   DIR/control-plane.secrets.env   WEBHOOK_SECRET, SECRETS_ENCRYPTION_KEY, API keys, the JWT key and the witness key
#   DIR/keys/registry-receipt.seed  the registry's receipt key (Ed25519 seed, base64): signs receipts and checkpoints
#   DIR/keys/registry-webhook.secret  the registry's webhook HMAC secret again, for `acdp registries enroll --secret-file`
# Existing files are never overwritten: rotate secrets as docs/deploy.md describes. Add PGPASSWORD=… to each
# secrets file yourself. Needs openssl (1.1.1 or later, for Ed25519).
set -euo pipefail
dir="${1:-/etc/acdp}"
umask 077
mkdir -p "$dir" "$dir/keys"
chmod 0700 "$dir/keys"
for file in "$dir/registry.secrets.env" "$dir/control-plane.secrets.env" "$dir/keys/registry-receipt.seed" \
  "$dir/keys/registry-webhook.secret"; do
  if [ -e "$file" ]; then
    echo "generate-secrets: $file exists; not overwriting" >&2
    exit 1
  fi
done

# An Ed25519 private key as one PKCS#8 PEM line with \n escapes, single-quoted: systemd keeps a single-quoted
# value literally, and both services turn the \n escapes back into newlines.
ed25519_pem_line() {
  printf "'%s'" "$(openssl genpkey -algorithm ed25519 | awk '{ printf "%s\\n", $0 }')"
}

webhook_secret="$(openssl rand -hex 32)"
openssl rand -base64 32 > "$dir/keys/registry-receipt.seed"
printf '%s\n' "$webhook_secret" > "$dir/keys/registry-webhook.secret"
cat > "$dir/registry.secrets.env" <<SECRETS
ACDP_REGISTRY_METRICS__BEARER_TOKEN=$(openssl rand -hex 24)
ACDP_REGISTRY_SEARCH__CURSOR_SECRET_B64=$(openssl rand -base64 32)
ACDP_REGISTRY_WEBHOOK__SECRET=${webhook_secret}
SECRETS
cat > "$dir/control-plane.secrets.env" <<SECRETS
WEBHOOK_SECRET=$(openssl rand -hex 32)
SECRETS_ENCRYPTION_KEY=$(openssl rand -base64 32)
AUTH_API_KEYS=$(openssl rand -hex 24)
AUTH_ADMIN_API_KEYS=$(openssl rand -hex 24)
JWT_PRIVATE_KEY_PEM=$(ed25519_pem_line)
WITNESS_SIGNING_PRIVATE_KEY_PEM=$(ed25519_pem_line)
SECRETS
chmod 0600 "$dir/registry.secrets.env" "$dir/control-plane.secrets.env" "$dir/keys/registry-receipt.seed" \
  "$dir/keys/registry-webhook.secret"
echo "generate-secrets: wrote $dir/registry.secrets.env, $dir/control-plane.secrets.env and $dir/keys/"
cat <<NOTE
generate-secrets: back these files up now, encrypted and off this host. Losing them cannot be repaired:
  - keys/registry-receipt.seed: every receipt and checkpoint is signed with it; without it the log cannot grow
    under the same key (rotate to a new key instead, docs/deploy.md "Rotating the receipt key");
  - WITNESS_SIGNING_PRIVATE_KEY_PEM: the witness's identity; registries and quorums trust its cosignatures;
  - SECRETS_ENCRYPTION_KEY: seals the enrollment secrets in the control plane's database (unreadable without it).
NOTE
