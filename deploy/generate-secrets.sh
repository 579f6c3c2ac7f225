#!/usr/bin/env bash
# Writes fresh secrets files for both services into DIR (default /etc/acdp), readable by their owner only:
#   DIR/registry.secrets.env       ACDP_REGISTRY_* secrets (metrics bearer, search cursor key, webhook HMAC)
#   DIR/control-plane.secrets.env  WEBHOOK_SECRET, SECRETS_ENCRYPTION_KEY, API keys
# The webhook HMAC secret is the same in both (the registry signs, the control plane verifies). Existing files
# are never overwritten: rotate secrets as docs/deploy.md describes. Add PGPASSWORD=… to each file yourself.
set -euo pipefail
dir="${1:-/etc/acdp}"
umask 077
mkdir -p "$dir"
for file in "$dir/registry.secrets.env" "$dir/control-plane.secrets.env"; do
  if [ -e "$file" ]; then
    echo "generate-secrets: $file exists; not overwriting" >&2
    exit 1
  fi
done
webhook_secret="$(openssl rand -hex 32)"
cat > "$dir/registry.secrets.env" <<SECRETS
ACDP_REGISTRY_METRICS__BEARER_TOKEN=$(openssl rand -hex 24)
ACDP_REGISTRY_SEARCH__CURSOR_SECRET_B64=$(openssl rand -base64 32)
ACDP_REGISTRY_WEBHOOK__SECRET=${webhook_secret}
SECRETS
cat > "$dir/control-plane.secrets.env" <<SECRETS
WEBHOOK_SECRET=${webhook_secret}
SECRETS_ENCRYPTION_KEY=$(openssl rand -base64 32)
AUTH_API_KEYS=$(openssl rand -hex 24)
AUTH_ADMIN_API_KEYS=$(openssl rand -hex 24)
SECRETS
echo "generate-secrets: wrote $dir/registry.secrets.env and $dir/control-plane.secrets.env"
