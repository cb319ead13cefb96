import"./config.mjs";import{t as e}from"./canonical-json.mjs";import{createHash as t}from"node:crypto";import{Worker as n}from"node:worker_threads";const r=1e6,i=/* @__PURE__ */ new Set([`all`,`exists`,`exists_one`,`map`,`filter`]),a={n:100},o=e=>e.elem??a,s=(e,t)=>({n:Math.max(e.n,t.n),...e.elem||t.elem?{elem:s(o(e),o(t))}:{}}),c=e=>({steps:1,depth:0,widest:0,shape:e});function l(e,t){return{steps:1+e.reduce((e,t)=>e+t.steps,0),depth:Math.max(0,...e.map(e=>e.depth)),widest:Math.max(0,...e.map(e=>e.widest)),shape:t}}function u(e,t){switch(e.op){case`value`:return c(typeof e.args==`string`?{n:e.args.length}:{n:1});case`id`:return c(t.get(e.args)??a);case`list`:{let n=e.args.map(e=>u(e,t));return l(n,{n:n.length,...n.length?{elem:n.map(e=>e.shape).reduce(s)}:{}})}case`map`:{let n=e.args.flatMap(([e,n])=>[u(e,t),u(n,t)]),r=n.filter((e,t)=>t%2==0).map(e=>e.shape);return l(n,{n:e.args.length,...r.length?{elem:r.reduce(s)}:{}})}case`+`:{let[n,r]=e.args.map(e=>u(e,t)),i=l([n,r],{n:n.shape.n+r.shape.n,elem:s(o(n.shape),o(r.shape))});return{...i,steps:i.steps+i.shape.n}}case`[]`:case`[?]`:{let n=e.args.map(e=>u(e,t));return l(n,o(n[0].shape))}case`rcall`:{let[n,r,o]=e.args;if(i.has(n)&&o[0]?.op===`id`)return d(n,r,o[0].args,o.slice(1),t);if(n===`bind`&&r.op===`id`&&r.args===`cel`&&o.length===3&&o[0].op===`id`){let e=u(o[1],t),n=u(o[2],new Map([...t,[o[0].args,e.shape]]));return l([e,n],n.shape)}let c=[r,...o].map(e=>u(e,t));return n===`split`?l(c,{n:c[0].shape.n+1,elem:c[0].shape}):l(c,c.map(e=>e.shape).reduce(s,a))}default:{let n=f(e).map(e=>u(e,t));return l(n,n.map(e=>e.shape).reduce(s,a))}}}function d(e,t,n,r,i){let a=u(t,i),s=new Map([...i,[n,o(a.shape)]]),c=r.map(e=>u(e,s)),l=1+c.reduce((e,t)=>e+t.steps,0),d=a.shape.n,f=e===`map`?{n:d,elem:c[c.length-1].shape}:e===`filter`?a.shape:{n:1};return{steps:1+a.steps+d*l,depth:Math.max(a.depth,1+Math.max(0,...c.map(e=>e.depth))),widest:Math.max(d,a.widest,...c.map(e=>e.widest)),shape:f}}function f(e){let t=[],n=e=>{Array.isArray(e)?e.forEach(n):typeof e==`object`&&e&&`op`in e&&t.push(e)};return n(e.args),t}function p(e){let{steps:t,depth:n,widest:r}=u(e,/* @__PURE__ */ new Map);return{steps:t,depth:n,widest:r}}const m=[[`action`,`string`],[`address`,`string`],[`kind`,`string`],[`before`,`dyn`],[`after`,`dyn`],[`plan`,`dyn`],[`usage`,`dyn`],[`now`,`google.protobuf.Timestamp`]],h={unlistedVariablesAreDyn:!1},g=5e3,_=e=>e<1e9?Math.round(e).toLocaleString(`en-US`):e.toExponential(1).replace(`e+`,`e`),v=e=>e.split(`
`)[0]??e;function y(n){let r=n.map(({name:e,level:t,kinds:n,actions:r,rule:i,message:a,timeoutMs:o})=>({name:e,level:t,kinds:n,actions:r,rule:i,message:a,...o===void 0?{}:{timeoutMs:o}}));return t(`sha256`).update(e(r)).digest(`hex`)}async function b(e){let{Environment:t}=await import(`./cel.mjs`),n=new t(h);for(let[e,t]of m)n=n.registerVariable(e,t);let i=[],a=[],o=(e,t,n,r)=>a.push({severity:`error`,code:t,summary:`Policy "${e.name}": ${n}`,detail:r,range:e.source});for(let t of e){let e;try{e=n.parse(t.rule)}catch(e){let n=e.message;o(t,`policy_syntax`,`the rule is not valid CEL: ${v(n)}`,n.split(`
`).slice(1).join(`
`).trim());continue}let a=e.check();if(!a.valid){let e=a.error?.message??`type error`;o(t,`policy_type`,`the rule does not type-check: ${v(e)}`,`${e.split(`
`).slice(1).join(`
`).trim()}\nA rule sees action, address, kind (strings), before and after (maps, or null), plan (a map), usage (a map, or null) and now (a timestamp); docs/policies.md.`.trim());continue}if(a.type!==`bool`&&a.type!==`dyn`){o(t,`policy_not_bool`,`the rule gives a ${a.type}, not a bool`,"A rule is true when the change is allowed, e.g. `after.expiresInDays != null && after.expiresInDays <= 90`.");continue}let s=p(e.ast);s.steps>1e6?o(t,`policy_too_costly`,`the rule may take about ${_(s.steps)} steps for one change (${s.depth} nested macro${s.depth===1?``:`s`} over up to ${s.widest} elements each); at most ${r.toLocaleString(`en-US`)} are allowed`,`A rule runs once for every planned change, so its cost is bounded before it runs: each macro (all, exists, exists_one, map, filter) runs its body once per element, and nested macros multiply. A list the rule does not write out (after.scopes) counts as 100 elements. Nest fewer macros or iterate over fewer elements; docs/policies.md#bounds.`):i.push({policy:t,cost:s})}return{policies:i,diagnostics:a,digest:y(e)}}const x=()=>new URL(`./cel.mjs`,import.meta.url).href;let S;const C={variables:m,options:h};var w=class{worker;at=new Int32Array(new SharedArrayBuffer(4));waiting;died;ready;constructor(e,t=C){S??=x(),this.worker=new n(`
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { celUrl, options, variables, rules, progress } = workerData;
const at = new Int32Array(progress);
const firstLine = (text) => String(text).split('\\n')[0];
import(celUrl).then(({ Environment }) => {
  let env = new Environment(options);
  for (const [name, type] of variables) env = env.registerVariable(name, type);
  const compiled = rules.map((rule) => {
    const parsed = env.parse(rule);
    parsed.check();
    return parsed;
  });
  let changes = [];
  parentPort.on('message', (message) => {
    if (message.changes) {
      changes = message.changes;
      parentPort.postMessage({ stored: true });
      return;
    }
    if (message.values) {
      // Each expression's value itself (cplane test's assertions and what a false one saw), or its error.
      const results = message.values.map((rule) => {
        Atomics.store(at, 0, 0);
        try {
          const value = compiled[rule](changes[message.change]);
          try {
            return [true, structuredClone(value)];
          } catch {
            return [true, String(value)];
          }
        } catch (error) {
          return [false, firstLine(error instanceof Error ? error.message : error)];
        }
      });
      parentPort.postMessage({ results });
      return;
    }
    const evaluate = compiled[message.policy];
    const outcomes = [];
    message.indices.forEach((change, i) => {
      Atomics.store(at, 0, i);
      try {
        const result = evaluate(changes[change]);
        if (result === false) outcomes.push([i, 'violated']);
        else if (result !== true) outcomes.push([i, 'error', 'it gave ' + (typeof result === 'bigint' ? 'an int' : typeof result) + ', not a bool']);
      } catch (error) {
        outcomes.push([i, 'error', firstLine(error instanceof Error ? error.message : error)]);
      }
    });
    parentPort.postMessage({ outcomes });
  });
  parentPort.postMessage({ ready: true });
});
`,{eval:!0,workerData:{celUrl:S,options:t.options,variables:t.variables,rules:e,progress:this.at.buffer},resourceLimits:{maxOldGenerationSizeMb:256}}),this.worker.on(`message`,e=>this.settle(t=>t.resolve(e))),this.worker.on(`error`,e=>this.fail(e)),this.worker.on(`exit`,e=>this.fail(/* @__PURE__ */ Error(`the policy worker exited (${e})`))),this.ready=this.next(),this.ready.catch(()=>void 0)}settle(e){let t=this.waiting;this.waiting=void 0,this.worker.unref(),t&&e(t)}fail(e){this.died??=e,this.settle(t=>t.reject(e))}next(){return this.died?Promise.reject(this.died):(this.worker.ref(),new Promise((e,t)=>this.waiting={resolve:e,reject:t}))}async store(e){await this.ready;let t=this.next();this.worker.postMessage({changes:e}),await t}async run(e,t,n){let r=await this.ask({policy:e,indices:t},n);if(!r.finished)return r;if(!(`outcomes`in r.message))throw Error(`the policy worker answered out of turn`);return{finished:!0,outcomes:r.message.outcomes}}async values(e,t,n){let r=await this.ask({values:e,change:t},n);if(!r.finished)return r;if(!(`results`in r.message))throw Error(`the policy worker answered out of turn`);return{finished:!0,results:r.message.results}}async ask(e,t){Atomics.store(this.at,0,0);let n=this.next();this.worker.postMessage(e);let r,i=new Promise(e=>r=setTimeout(()=>e(`deadline`),t));try{let e=await Promise.race([n,i]);if(e===`deadline`){n.catch(()=>void 0);let e=Atomics.load(this.at,0);return await this.close(),{finished:!1,at:e}}return{finished:!0,message:e}}catch(e){let t=Atomics.load(this.at,0);return await this.close(),{finished:!1,at:t,reason:e.message}}finally{clearTimeout(r)}}get alive(){return this.died===void 0}async close(){this.died??=/* @__PURE__ */ Error(`the policy worker was stopped`),await this.worker.terminate()}};const T={spend:{before:0,after:0,delta:0}};function E(e){return typeof e==`number`?Number.isInteger(e)?BigInt(e):e:Array.isArray(e)?e.map(E):typeof e==`object`&&e?Object.fromEntries(Object.entries(e).map(([e,t])=>[e,E(t)])):e}const D=3e4,O=[`archive`,`delete`,`revoke`,`forget`],k=(e,t)=>(e.kinds.length===0||e.kinds.includes(t.kind))&&(e.actions.length>0?e.actions.includes(t.action):!O.includes(t.action));function A(e){return new w(e.policies.map(({policy:e})=>e.rule))}async function j(e,t,n={}){let{sandbox:r,budgetMs:i=D,plan:a=T,now:o=/* @__PURE__ */ new Date(0)}=n,s={spend:{...a.spend}},c=t.map(e=>({action:e.action,address:e.address,kind:e.kind,before:E(e.before),after:E(e.after),plan:s,usage:e.usage?{spend7d:e.usage.spend7d,requests7d:BigInt(e.usage.requests7d)}:null,now:o})),l=[],u=0,d=r,f=!1,p=performance.now();try{for(let[n,{policy:r}]of e.policies.entries()){let a=t.flatMap((e,t)=>k(r,e)?[t]:[]);if(a.length===0)continue;u+=a.length;let o=(e,i,o)=>{let s=t[a[e]];l.push({change:a[e],policy:n,finding:{policy:r.name,level:r.level,address:s.address,kind:s.kind,outcome:i,message:o,...s.at?{at:s.at}:{}}})};d?.alive||(d=A(e),f=!1),f||await d.store(c),f=!0;let s=r.timeoutMs??5e3,m=Math.max(0,i-(performance.now()-p)),h=await d.run(n,a,Math.min(s,m));if(h.finished){for(let[e,t,n]of h.outcomes)o(e,t,t===`violated`?r.message:n);continue}let g=a.length-h.at-1,_=g>0?`; ${g} more change${g===1?` was`:`s were`} not checked`:``,v=h.reason?`it stopped its evaluator (${h.reason})`:s<=m?`it did not finish within ${s} ms (${r.timeoutMs===void 0?`the default deadline`:`its timeoutMs`})`:`it did not finish within the ${i} ms all policies of a plan have together`;o(h.at,`error`,`${v}${_}`)}}finally{await d?.close()}return l.sort((e,t)=>e.change-t.change||e.policy-t.policy),{digest:e.digest,policies:e.policies.length,checked:u,findings:l.map(e=>e.finding)}}const M=e=>e.split(`
`)[0]??e,N=[`add`,`change`,`replace`,`remove`,`policyViolations`,`incomplete`];async function P(e,t,n){let{Environment:r}=await import(`./cel.mjs`),i=new r({unlistedVariablesAreDyn:!1}).registerVariable(`plan`,`map`),a=(t,r,i)=>({severity:`error`,code:t,summary:`The autoApprove rule of deployment "${e}" ${r}`,detail:i,range:n}),o;try{o=i.parse(t)}catch(e){return a(`auto_approve_syntax`,`is not valid CEL: ${M(e.message)}`,`e.g. autoApprove: "plan.remove == 0 && plan.replace == 0"`)}let s=o.check();return s.valid?s.type!==`bool`&&s.type!==`dyn`?a(`auto_approve_not_bool`,`gives a ${s.type}, not a bool`,`It is true when the deployment may be applied without asking.`):e=>{let t=Object.fromEntries(N.map(t=>[t,BigInt(e[t])]));try{let e=o({plan:t});return e===!0?{approved:!0}:{approved:!1,why:e===!1?`its autoApprove rule is false for this plan`:`its autoApprove rule did not give a bool`}}catch(e){return{approved:!1,why:`its autoApprove rule failed: ${M(e instanceof Error?e.message:String(e))}`}}}:a(`auto_approve_type`,`does not type-check: ${M(s.error?.message??`type error`)}`,`It sees plan.${N.join(`, plan.`)} (ints).`)}export{A as a,b as c,j as i,y as l,D as n,w as o,E as r,g as s,P as t,r as u};