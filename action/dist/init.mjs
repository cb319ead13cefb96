import{o as e}from"./connection.mjs";import{t}from"./errors.mjs";import{n}from"./workspace.mjs";import{t as r}from"./variables-flags.mjs";import{S as i,t as a}from"./config.mjs";import{n as o,t as s}from"./state.mjs";import{a as c,o as l}from"./safe-text.mjs";import{n as u}from"./exit-codes.mjs";import{t as d}from"./package-files.mjs";import{join as f,relative as p,resolve as m,sep as h}from"node:path";import{mkdir as g,readFile as _,readdir as v,writeFile as y}from"node:fs/promises";const b=/^#\s*yaml-language-server:\s*\$schema=/m;async function x(e){let t=p(e,d(`schema`,`config.schema.json`)).split(h).join(`/`),n=(await v(e,{withFileTypes:!0})).filter(e=>e.isFile()&&/\.ya?ml$/i.test(e.name)).map(e=>e.name).sort(),r=[];for(let i of n){let n=await _(f(e,i),`utf8`);b.test(n)||(await y(f(e,i),`# yaml-language-server: $schema=${t}\n${n}`),r.push(i))}return r}async function S(e){try{return{ok:!0,value:await e()}}catch(e){if(!(e instanceof t))throw e;return{ok:!1,error:e.message,...e.hint?{hint:e.hint}:{}}}}const C={env:`the environment variable CPLANE_STATE_KEY`,passphrase:`the environment variable CPLANE_PASSPHRASE`};function w(e){return e.created?`created ${e.path} (mode 0600). Keep it and back it up with your other secrets: without it the state's sealed values cannot be opened.`:e.source===`keyfile`?`found the key file ${e.path}`:`from ${C[e.source]}`}const T=t=>[...t.deployment?.baseUrl?[]:[{name:`CPLANE_BASE_URL`,use:`API address (or --base-url)`}],{name:e(t),use:t.deployment?.tokenEnv?`API token of the deployment ${t.deployment.name}`:`API token`}];async function E(e){if(await g(e,{recursive:!0}),(await v(e)).some(e=>/\.ya?ml$/i.test(e)))return;let t=f(e,`cplane.yaml`);return await y(t,`# A starter configuration written by \`cplane init\`. Edit it, then run \`cplane plan\`.
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
`,{flag:`wx`}),t}const D={async run(e){if(e.positionals.length>1)throw new t(`init takes at most one folder.`,`Usage: cplane init [dir]`);let d=e.positionals[0],f=await E(m(e.cwd,d??`.`)),p=await n(e,d),h=await S(()=>s(p.configDir,e.env)),g=await S(()=>o(p)),_=await a(p.configDir,{env:e.env,cwd:e.cwd,variables:r(e).variables??[],...e.deployment?{deployment:e.deployment.name}:{}}),v=T(e),y=[...v.map(t=>({...t,set:!!e.env[t.name]})),..._.needs.filter(e=>!v.some(t=>t.name===e.name))],b=h.ok&&g.ok&&_.diagnostics.every(e=>e.severity!==`error`),C=await x(p.configDir).catch(()=>[]);if(e.values.json===!0){let t={ready:b,...f?{wrote:f}:{},stateKey:h.ok?h.value:{error:h.error,hint:h.hint},state:g.ok?g.value:{error:g.error,hint:g.hint},environment:y,unset:y.filter(e=>!e.set).map(e=>e.name),diagnostics:_.diagnostics,schemaLineAdded:C};return e.stdout.write(`${c(JSON.stringify(t,null,2))}\n`),b?u.ok:u.error}let D=e=>`${e.error}${e.hint?`\n             ${e.hint}`:``}`,O=[...f?[`Wrote ${f}: a starter configuration (one project, one record with a generated value). Edit it, then run \`cplane plan\`.`]:[],`State key:   ${h.ok?w(h.value):D(h)}`,`State:       ${g.ok?`${g.value.location}: ${g.value.status}`:D(g)}`];C.length>0&&O.push(`Editor:      added the schema line (# yaml-language-server: $schema=...) to ${C.map(l).join(`, `)}`);let k=y.filter(e=>!e.set);O.push(`Environment: ${y.length} variable${y.length===1?``:`s`} read, ${k.length===0?`all set`:`${k.length} unset`}:`);let A=Math.max(...y.map(e=>e.name.length));for(let e of y)O.push(`  ${l(e.name).padEnd(A)}  ${e.set?`set  `:`UNSET`}  ${e.use}`);let j=!!e.stderr.isTTY&&!e.env.NO_COLOR;for(let t of _.diagnostics)e.stderr.write(`${i(t,{color:j})}\n\n`);return e.stdout.write(`${c(O.join(`
`))}\n`),b||e.stderr.write("Not ready: fix the problems above and run `cplane init` again.\n"),b?u.ok:u.error}};export{D as initCommand};