-- Drives Neovim as a person would, after the docs' setup (docs/editors.md) ran as its init: opens files,
-- waits for the language server's answers with vim.wait (generous: the machine may be slow), asks for
-- completion and definition, renames, saves, and writes what it saw as JSON for test/lsp/neovim.test.ts.
local dir, out_path = os.getenv('CPLANE_NVIM_DIR'), os.getenv('CPLANE_NVIM_OUT')
local WAIT = 120000
local out = { errors = {} }

local function finish()
  vim.fn.writefile({ vim.fn.json_encode(out) }, out_path)
  vim.cmd('qa!')
end

local function step(name, fn)
  local ok, err = pcall(fn)
  if not ok then table.insert(out.errors, name .. ': ' .. tostring(err)) end
end

local function clients(buf)
  local list = {}
  for _, client in pairs(vim.lsp.buf_get_clients(buf)) do table.insert(list, client) end
  return list
end

local function request(buf, method, params)
  local answers = vim.lsp.buf_request_sync(buf, method, params, WAIT) or {}
  for _, answer in pairs(answers) do
    if answer.error then error(method .. ': ' .. vim.inspect(answer.error)) end
    return answer.result
  end
end

local function position(buf, needle, shift)
  for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local at = line:find(needle, 1, true)
    if at then return { line = i - 1, character = at - 1 + (shift or 0) } end
  end
  error('not in the buffer: ' .. needle)
end

step('module file', function()
  vim.cmd('edit ' .. dir .. '/modules/team/main.yaml')
  local buf = vim.api.nvim_get_current_buf()
  if not vim.wait(WAIT, function() return #clients(buf) > 0 end, 50) then error('no client attached') end
  out.module_root = clients(buf)[1].config.root_dir
  -- An answer to a request comes after the diagnostics of the opening were worked out.
  request(buf, 'textDocument/hover', { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = position(buf, 'project:', 1) })
end)

step('diagnostics', function()
  vim.cmd('edit ' .. dir .. '/gateways.yaml')
  local buf = vim.api.nvim_get_current_buf()
  if not vim.wait(WAIT, function() return #vim.diagnostic.get(buf) > 0 end, 50) then error('no diagnostics') end
  out.root = clients(buf)[1].config.root_dir
  out.clients = #vim.lsp.get_active_clients()
  out.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(out.diagnostics, { lnum = d.lnum, col = d.col, end_col = d.end_col, message = d.message })
  end
  out.module_diagnostics = #vim.diagnostic.get(vim.fn.bufnr(dir .. '/modules/team/main.yaml'))
end)

step('completion', function()
  local buf = vim.fn.bufnr(dir .. '/gateways.yaml')
  local result = request(buf, 'textDocument/completion', {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = position(buf, 'project: paymnts', #'project: pay'),
  })
  out.completion = {}
  for _, item in ipairs(result.items or result) do table.insert(out.completion, item.label) end
end)

step('definition', function()
  local buf = vim.fn.bufnr(dir .. '/gateways.yaml')
  local result = request(buf, 'textDocument/definition', {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = position(buf, 'credentials: [openai]', #'credentials: [op'),
  })
  local location = result[1] or result
  out.definition = { path = vim.uri_to_fname(location.uri), line = location.range.start.line }
end)

step('rename', function()
  local buf = vim.fn.bufnr(dir .. '/gateways.yaml')
  local edit = request(buf, 'textDocument/rename', {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = position(buf, 'credentials: [openai]', #'credentials: [op'),
    newName = 'openai-main',
  })
  vim.lsp.util.apply_workspace_edit(edit, 'utf-16')
  vim.cmd('silent! wall')
  out.renamed = true
end)

finish()
