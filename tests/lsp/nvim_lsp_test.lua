-- Run by nvim_test.py in `nvim --headless -u NONE` (Neovim 0.7's built-in
-- client: vim.lsp.start_client + buf_attach_client). Opens the golden log,
-- waits for faultline's diagnostics, asks for the code actions on the error's
-- line, and writes what it saw as JSON for the driver to check.
local cfg = vim.fn.json_decode(table.concat(vim.fn.readfile(os.getenv('FAULTLINE_NVIM_TEST_CONFIG')), '\n'))
local result = { diagnostics = {}, actions = {}, errors = {} }

local function run()
  vim.cmd('edit ' .. vim.fn.fnameescape(cfg.log_path))
  local bufnr = vim.api.nvim_get_current_buf()
  local client_id = vim.lsp.start_client({
    name = 'faultline',
    cmd = { cfg.faultline, 'lsp' },
    root_dir = cfg.root_dir,
  })
  if not client_id then
    table.insert(result.errors, 'start_client failed')
    return
  end
  vim.lsp.buf_attach_client(bufnr, client_id)
  local got = vim.wait(cfg.timeout_ms, function() return #vim.diagnostic.get(bufnr) > 0 end, 50)
  if not got then
    table.insert(result.errors, 'no diagnostics within ' .. cfg.timeout_ms .. ' ms')
    return
  end
  local error_line = nil
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    local lsp_d = d.user_data and d.user_data.lsp or {}
    table.insert(result.diagnostics, {
      lnum = d.lnum, severity = d.severity, message = d.message, source = d.source, code = lsp_d.code,
      is_error = d.severity == vim.diagnostic.severity.ERROR,
    })
    if d.severity == vim.diagnostic.severity.ERROR then error_line = d.lnum end
  end
  if error_line == nil then
    table.insert(result.errors, 'no error diagnostic')
    return
  end
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = { start = { line = error_line, character = 0 }, ['end'] = { line = error_line, character = 0 } },
    context = { diagnostics = {} },
  }
  local responses = vim.lsp.buf_request_sync(bufnr, 'textDocument/codeAction', params, cfg.timeout_ms)
  for _, resp in pairs(responses or {}) do
    if resp.err then table.insert(result.errors, 'codeAction: ' .. vim.inspect(resp.err)) end
    for _, a in ipairs(resp.result or {}) do
      table.insert(result.actions, {
        title = a.title,
        command = a.command and a.command.command or vim.NIL,
        arguments = a.command and a.command.arguments or vim.NIL,
      })
    end
  end
  vim.lsp.stop_client(client_id)
end

local ok, err = pcall(run)
if not ok then table.insert(result.errors, 'lua error: ' .. tostring(err)) end
vim.fn.writefile({ vim.fn.json_encode(result) }, cfg.result_path)
vim.cmd('qa!')
