/**
 * The starter configuration `cplane init` writes into a folder that has none: small, valid, and with a comment
 * at each key a new user changes first, so `cplane plan` works on it as soon as the account is set.
 */
export const STARTER_FILE = 'cplane.yaml';

export const STARTER_CONFIGURATION = `# A starter configuration written by \`cplane init\`. Edit it, then run \`cplane plan\`.
# Every key is described in docs/configuration.md; examples of each kind are in the cplane repository's examples/.
version: 1
account: \${var.account}     # the account id: from --account or CPLANE_ACCOUNT (see GET /accounts)

variables:
  account:
    description: Account id to provision into.
  env:
    description: Environment name, used in resource names.
    default: dev

projects:
  app:
    name: app-\${var.env}
    description: My application
    records:
      session-secret:
        tags: [app]
        # cplane generates the value, encrypts it on this machine, and rotates it every 90 days.
        value: { generate: { length: 32 } }
        rotationIntervalDays: 90
`;
