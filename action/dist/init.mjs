import{t as e}from"./errors.mjs";import{n as t}from"./workspace.mjs";import{t as n}from"./variables-flags.mjs";import{t as r,v as i}from"./config.mjs";import{n as a,t as o}from"./state.mjs";import{a as s,i as c}from"./safe-text.mjs";import{t as l}from"./exit-codes.mjs";import{t as u}from"./package-files.mjs";import{join as d,relative as f,resolve as p,sep as m}from"node:path";import{mkdir as h,readFile as g,readdir as _,writeFile as v}from"node:fs/promises";const y=/^#\s*yaml-language-server:\s*\$schema=/m;async function b(e){let t=f(e,u(`schema`,`config.schema.json`)).split(m).join(`/`),n=(await _(e,{withFileTypes:!0})).filter(e=>e.isFile()&&/\.ya?ml$/i.test(e.name)).map(e=>e.name).sort(),r=[];for(let i of n){let n=await g(d(e,i),`utf8`);y.test(n)||(await v(d(e,i),`# yaml-language-server: $schema=${t}\n${n}`),r.push(i))}return r}async function x(t){try{return{ok:!0,value:await t()}}catch(t){if(!(t instanceof e))throw t;return{ok:!1,error:t.message,...t.hint?{hint:t.hint}:{}}}}const S={env:`the environment variable CPLANE_STATE_KEY`,passphrase:`the environment variable CPLANE_PASSPHRASE`};function C(e){return e.created?`created ${e.path} (mode 0600). Keep it and back it up with your other secrets: without it the state's sealed values cannot be opened.`:e.source===`keyfile`?`found the key file ${e.path}`:`from ${S[e.source]}`}const w=[{name:`CPLANE_BASE_URL`,use:`API address (or --base-url)`},{name:`CPLANE_TOKEN`,use:`API token`}];async function T(e){if(await h(e,{recursive:!0}),(await _(e)).some(e=>/\.ya?ml$/i.test(e)))return;let t=d(e,`cplane.yaml`);return await v(t,`# A starter configuration written by \`cplane init\`. Edit it, then run \`cplane plan\`.
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
`,{flag:`wx`}),t}const E={async run(u){if(u.positionals.length>1)throw new e(`init takes at most one folder.`,`Usage: cplane init [dir]`);let d=u.positionals[0],f=await T(p(u.cwd,d??`.`)),m=await t(u,d),h=await x(()=>o(m.configDir,u.env)),g=await x(()=>a(m)),_=await r(m.configDir,{env:u.env,cwd:u.cwd,variables:n(u).variables??[]}),v=[...w.map(e=>({...e,set:!!u.env[e.name]})),..._.needs.filter(e=>!w.some(t=>t.name===e.name))],y=h.ok&&g.ok&&_.diagnostics.every(e=>e.severity!==`error`),S=await b(m.configDir).catch(()=>[]);if(u.values.json===!0){let e={ready:y,...f?{wrote:f}:{},stateKey:h.ok?h.value:{error:h.error,hint:h.hint},state:g.ok?g.value:{error:g.error,hint:g.hint},environment:v,unset:v.filter(e=>!e.set).map(e=>e.name),diagnostics:_.diagnostics,schemaLineAdded:S};return u.stdout.write(`${c(JSON.stringify(e,null,2))}\n`),y?l.ok:l.error}let E=e=>`${e.error}${e.hint?`\n             ${e.hint}`:``}`,D=[...f?[`Wrote ${f}: a starter configuration (one project, one record with a generated value). Edit it, then run \`cplane plan\`.`]:[],`State key:   ${h.ok?C(h.value):E(h)}`,`State:       ${g.ok?`${g.value.location}: ${g.value.status}`:E(g)}`];S.length>0&&D.push(`Editor:      added the schema line (# yaml-language-server: $schema=...) to ${S.map(s).join(`, `)}`);let O=v.filter(e=>!e.set);D.push(`Environment: ${v.length} variable${v.length===1?``:`s`} read, ${O.length===0?`all set`:`${O.length} unset`}:`);let k=Math.max(...v.map(e=>e.name.length));for(let e of v)D.push(`  ${s(e.name).padEnd(k)}  ${e.set?`set  `:`UNSET`}  ${e.use}`);let A=!!u.stderr.isTTY&&!u.env.NO_COLOR;for(let e of _.diagnostics)u.stderr.write(`${i(e,{color:A})}\n\n`);return u.stdout.write(`${c(D.join(`
`))}\n`),y||u.stderr.write("Not ready: fix the problems above and run `cplane init` again.\n"),y?l.ok:l.error}};export{E as initCommand};