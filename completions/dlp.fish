# fish completion for dlp: subcommands, flags, context names and job ids
# (the latter two from `dlp __complete contexts|jobs`).

set -l dlp_commands submit status list logs describe cancel delete wait validate render server config version completion profile metrics artifacts model top ui pipeline queue sweep admin

function __dlp_jobs
    dlp __complete jobs 2>/dev/null
end

function __dlp_contexts
    dlp __complete contexts 2>/dev/null
end

complete -c dlp -f
complete -c dlp -l context -x -a '(__dlp_contexts)' -d 'Context to use'
complete -c dlp -l config -r -F -d 'Config file'
complete -c dlp -l no-color -d 'Never color the output'
complete -c dlp -s h -l help -d 'Show help'
complete -c dlp -l help-all -d 'Show help for every subcommand'
complete -c dlp -n "not __fish_seen_subcommand_from $dlp_commands" -l version -d "Print dlp's version"

complete -c dlp -n "not __fish_seen_subcommand_from $dlp_commands" -a submit -d 'Submit a job spec'
complete -c dlp -n "not __fish_seen_subcommand_from $dlp_commands" -a status -d "Show a job's state"
complete -c dlp -n "not __fish_seen_subcommand_from $dlp_commands" -a list -d 'List jobs'
complete -c dlp -n "not __fish_seen_subcommand_from $dlp_commands" -a logs -d "Print a job's logs"
complete -c dlp -n "not __fish_seen_subcommand_from $dlp_commands" -a describe -d 'Show a job in detail'
complete -c dlp -n "not __fish_seen_subcommand_from $dlp_commands" -a cancel -d 'Cancel jobs'
complete -c dlp -n "not __fish_seen_subcommand_from $dlp_commands" -a delete -d 'Delete ended jobs and their files'
complete -c dlp -n "not __fish_seen_subcommand_from $dlp_commands" -a wait -d 'Wait for jobs to end'
complete -c dlp -n "not __fish_seen_subcommand_from $dlp_commands" -a validate -d 'Check a job spec'
complete -c dlp -n "not __fish_seen_subcommand_from $dlp_commands" -a render -d 'Print what the backend would run'
complete -c dlp -n "not __fish_seen_subcommand_from $dlp_commands" -a server -d 'Manage the local dlpd'
complete -c dlp -n "not __fish_seen_subcommand_from $dlp_commands" -a config -d 'View and edit contexts'
complete -c dlp -n "not __fish_seen_subcommand_from $dlp_commands" -a version -d 'Print versions'
complete -c dlp -n "not __fish_seen_subcommand_from $dlp_commands" -a completion -d 'Print the completion script of a shell'
complete -c dlp -n '__fish_seen_subcommand_from completion' -x -a 'bash zsh fish'
complete -c dlp -n '__fish_seen_subcommand_from delete' -s f -l force -d 'Cancel a job that has not ended first'
complete -c dlp -n "not __fish_seen_subcommand_from $dlp_commands" -a pipeline -d 'Show, list, cancel or resume pipelines'
complete -c dlp -n "not __fish_seen_subcommand_from $dlp_commands" -a queue -d 'Show the queues: quota, use, borrowing, pending jobs, share'
complete -c dlp -n "not __fish_seen_subcommand_from $dlp_commands" -a admin -d 'Administer tenants, tokens and queues of a shared dlpd'

# submit
complete -c dlp -n '__fish_seen_subcommand_from submit' -F -a '(__fish_complete_suffix .yaml)'
complete -c dlp -n '__fish_seen_subcommand_from submit' -s f -l file -r -F -d 'Job spec file (- = stdin)'
complete -c dlp -n '__fish_seen_subcommand_from submit' -l set -x -d 'Override a spec value (KEY=VALUE)'
complete -c dlp -n '__fish_seen_subcommand_from submit' -l name -x -d 'Job name'
complete -c dlp -n '__fish_seen_subcommand_from submit' -l wait -d 'Wait for the job to end'
complete -c dlp -n '__fish_seen_subcommand_from submit' -l follow -d 'Stream logs until the job ends'
complete -c dlp -n '__fish_seen_subcommand_from submit' -l metrics -d 'With --follow, also print DLP_METRIC lines'
complete -c dlp -n '__fish_seen_subcommand_from submit' -s q -l quiet -d 'Print only the job id'

# commands taking job ids
complete -c dlp -n '__fish_seen_subcommand_from status describe logs cancel delete wait' -x -a '(__dlp_jobs)'
complete -c dlp -n '__fish_seen_subcommand_from status' -l why -d 'Why the job waits: position, estimated start, decision trace'
complete -c dlp -n '__fish_seen_subcommand_from status list describe' -s o -l output -x -a 'table wide json yaml' -d 'Output format'

# list
complete -c dlp -n '__fish_seen_subcommand_from list' -l state -x -a 'Queued Running Succeeded Failed Cancelled' -d 'Only jobs in this state'
complete -c dlp -n '__fish_seen_subcommand_from list' -l label -x -d 'Only jobs with this label (KEY=VALUE)'
complete -c dlp -n '__fish_seen_subcommand_from list' -l queue -x -d 'Only jobs in this queue'
complete -c dlp -n '__fish_seen_subcommand_from list' -l limit -x -d 'Only the newest N jobs'

# logs
complete -c dlp -n '__fish_seen_subcommand_from logs' -s f -l follow -d 'Keep streaming until the job ends'
complete -c dlp -n '__fish_seen_subcommand_from logs' -l replica -x -d 'Only this replica (worker-0)'
complete -c dlp -n '__fish_seen_subcommand_from logs' -l tail -x -d 'Last N lines per replica'
complete -c dlp -n '__fish_seen_subcommand_from logs' -l since -x -d 'Only lines newer than (10m)'
complete -c dlp -n '__fish_seen_subcommand_from logs' -l timestamps -d "Print each line's time"
complete -c dlp -n '__fish_seen_subcommand_from logs' -l metrics -d 'Also print DLP_METRIC lines'

# cancel, wait
complete -c dlp -n '__fish_seen_subcommand_from cancel wait validate' -s q -l quiet -d 'Print less'
complete -c dlp -n '__fish_seen_subcommand_from wait' -l timeout -x -d 'Give up after this long (5m)'

# validate, render
complete -c dlp -n '__fish_seen_subcommand_from validate render' -F -a '(__fish_complete_suffix .yaml)'
complete -c dlp -n '__fish_seen_subcommand_from validate render' -l set -x -d 'Override a spec value'
complete -c dlp -n '__fish_seen_subcommand_from render' -l backend -x -a 'local remote slurm kubernetes' -d 'Render for this backend'
complete -c dlp -n '__fish_seen_subcommand_from render' -l field -x -a 'flavour= namespace= queue= image= gpu-resource= gpu-type-label= training-runtime= dlp-run= output-claim=' -d 'A context field for this render'
complete -c dlp -n '__fish_seen_subcommand_from render' -s o -l output -x -a 'text json' -d 'Output format'

# version
complete -c dlp -n '__fish_seen_subcommand_from version' -l client -d "Only the client's version"

# server
complete -c dlp -n '__fish_seen_subcommand_from server; and not __fish_seen_subcommand_from start stop status' -a start -d 'Start dlpd'
complete -c dlp -n '__fish_seen_subcommand_from server; and not __fish_seen_subcommand_from start stop status' -a stop -d 'Stop dlpd'
complete -c dlp -n '__fish_seen_subcommand_from server; and not __fish_seen_subcommand_from start stop status' -a status -d 'Show whether dlpd runs'
complete -c dlp -n '__fish_seen_subcommand_from server' -l state-dir -r -a '(__fish_complete_directories)' -d 'State folder'
complete -c dlp -n '__fish_seen_subcommand_from server; and __fish_seen_subcommand_from start' -l listen -x -d 'HOST:PORT'

# config
set -l config_actions view get-contexts current-context use-context set-context
complete -c dlp -n "__fish_seen_subcommand_from config; and not __fish_seen_subcommand_from $config_actions" -a view -d 'Print the config'
complete -c dlp -n "__fish_seen_subcommand_from config; and not __fish_seen_subcommand_from $config_actions" -a get-contexts -d 'List contexts'
complete -c dlp -n "__fish_seen_subcommand_from config; and not __fish_seen_subcommand_from $config_actions" -a current-context -d 'Print the current context'
complete -c dlp -n "__fish_seen_subcommand_from config; and not __fish_seen_subcommand_from $config_actions" -a use-context -d 'Switch context'
complete -c dlp -n "__fish_seen_subcommand_from config; and not __fish_seen_subcommand_from $config_actions" -a set-context -d 'Create or modify a context'
complete -c dlp -n '__fish_seen_subcommand_from use-context set-context' -x -a '(__dlp_contexts)'
complete -c dlp -n '__fish_seen_subcommand_from set-context' -l backend -x -a 'local remote slurm kubernetes' -d 'Backend'
complete -c dlp -n '__fish_seen_subcommand_from set-context' -l field -x -a 'server= token= token-file= ca-file= insecure-skip-tls-verify= state-dir= partition= account= qos= workdir= rest-url= kubeconfig= context= namespace= flavour= queue= image= gpu-resource= gpu-type-label= training-runtime= output-claim=' -d 'Set a field (KEY=VALUE)'
complete -c dlp -n '__fish_seen_subcommand_from set-context' -l allow-insecure-http -d 'Let the token go over plain http to another machine'

# profile, metrics
complete -c dlp -n "not __fish_seen_subcommand_from $dlp_commands" -a profile -d 'Merge rank traces, show where step time goes'
complete -c dlp -n "not __fish_seen_subcommand_from $dlp_commands" -a metrics -d 'Show the training metrics a job reported'
complete -c dlp -n '__fish_seen_subcommand_from profile metrics' -x -a '(__dlp_jobs)'
complete -c dlp -n '__fish_seen_subcommand_from profile' -l trace -r -F -d 'Write the merged Chrome trace'
complete -c dlp -n '__fish_seen_subcommand_from profile' -s o -l output -x -a 'table json' -d 'Output format'
complete -c dlp -n '__fish_seen_subcommand_from profile' -l duration -x -d 'Profile a running job over this window'
complete -c dlp -n '__fish_seen_subcommand_from profile' -l dir -r -a '(__fish_complete_directories)' -d 'Read rank traces from here'
complete -c dlp -n '__fish_seen_subcommand_from metrics' -l name -x -d 'Only this metric'
complete -c dlp -n '__fish_seen_subcommand_from metrics' -l replica -x -d 'Only this replica'
complete -c dlp -n '__fish_seen_subcommand_from metrics' -s o -l output -x -a 'table json csv' -d 'Output format'
complete -c dlp -n '__fish_seen_subcommand_from metrics' -l plot -d 'Draw a chart in the terminal'
complete -c dlp -n '__fish_seen_subcommand_from metrics' -l compare -d "Runs side by side: each metric's final and best value per job"
complete -c dlp -n '__fish_seen_subcommand_from metrics' -l png -r -F -d 'Write the chart as a PNG image'
complete -c dlp -n '__fish_seen_subcommand_from metrics' -l svg -r -F -d 'Write the chart as an SVG image'
complete -c dlp -n '__fish_seen_subcommand_from metrics' -l smooth -x -d 'Moving average over N points'
complete -c dlp -n '__fish_seen_subcommand_from metrics' -l replicas -x -a 'rank0 each mean min max' -d 'Series per job'
complete -c dlp -n '__fish_seen_subcommand_from metrics' -l log-y -d 'Log-scale y axes'
complete -c dlp -n '__fish_seen_subcommand_from metrics' -l x -x -a 'step time' -d 'Horizontal axis'
# artifacts list|get JOB [PATH]
complete -c dlp -n "not __fish_seen_subcommand_from $dlp_commands" -a artifacts -d 'List or fetch what a job wrote into $DLP_OUTPUT_DIR'
complete -c dlp -n '__fish_seen_subcommand_from artifacts; and not __fish_seen_subcommand_from list get' -a list -d "List a job's artifacts"
complete -c dlp -n '__fish_seen_subcommand_from artifacts; and not __fish_seen_subcommand_from list get' -a get -d "Fetch a job's artifacts, checking SHA-256"
complete -c dlp -n '__fish_seen_subcommand_from artifacts; and __fish_seen_subcommand_from list get' -x -a '(__dlp_jobs)'
complete -c dlp -n '__fish_seen_subcommand_from artifacts; and __fish_seen_subcommand_from list' -s o -l output -x -a 'table json' -d 'Output format'
complete -c dlp -n '__fish_seen_subcommand_from artifacts; and __fish_seen_subcommand_from get' -s o -l output-dir -r -a '(__fish_complete_directories)' -d 'Folder to write into'
# model register|list|show|get|alias set
set -l dlp_model_verbs register list show get alias
complete -c dlp -n "not __fish_seen_subcommand_from $dlp_commands" -a model -d 'Register, list, show and fetch model versions'
complete -c dlp -n "__fish_seen_subcommand_from model; and not __fish_seen_subcommand_from $dlp_model_verbs" -a register -d "Register a file of a job's output folder"
complete -c dlp -n "__fish_seen_subcommand_from model; and not __fish_seen_subcommand_from $dlp_model_verbs" -a list -d 'List model versions'
complete -c dlp -n "__fish_seen_subcommand_from model; and not __fish_seen_subcommand_from $dlp_model_verbs" -a show -d 'Show one version'
complete -c dlp -n "__fish_seen_subcommand_from model; and not __fish_seen_subcommand_from $dlp_model_verbs" -a get -d "Fetch a version's file, checking SHA-256"
complete -c dlp -n "__fish_seen_subcommand_from model; and not __fish_seen_subcommand_from $dlp_model_verbs" -a alias -d "Manage a model's aliases"
complete -c dlp -n '__fish_seen_subcommand_from model; and __fish_seen_subcommand_from alias; and not __fish_seen_subcommand_from set' -a set -d 'Point NAME@ALIAS at a version'
complete -c dlp -n '__fish_seen_subcommand_from model; and __fish_seen_subcommand_from register' -l job -x -a '(__dlp_jobs)' -d 'The job that wrote the file'
complete -c dlp -n '__fish_seen_subcommand_from model; and __fish_seen_subcommand_from register' -l path -x -d 'File in the output folder'
complete -c dlp -n '__fish_seen_subcommand_from model; and __fish_seen_subcommand_from register' -l alias -x -d 'Alias for the new version'
complete -c dlp -n '__fish_seen_subcommand_from model; and __fish_seen_subcommand_from list show' -s o -l output -x -a 'table json' -d 'Output format'
complete -c dlp -n '__fish_seen_subcommand_from model; and __fish_seen_subcommand_from get' -s o -l output-dir -r -a '(__fish_complete_directories)' -d 'Folder to write into'
# top
complete -c dlp -n "not __fish_seen_subcommand_from $dlp_commands" -a top -d 'Live view of running jobs and replicas'
complete -c dlp -n '__fish_seen_subcommand_from top' -l interval -x -d 'Seconds between refreshes'
complete -c dlp -n '__fish_seen_subcommand_from top' -l once -d 'Print one snapshot and exit'

# sweep submit|status|list|cancel|resume|delete
complete -c dlp -n "not __fish_seen_subcommand_from $dlp_commands" -a sweep -d 'Hyperparameter sweeps'
set -l dlp_sweep_verbs submit status list cancel resume delete
complete -c dlp -n "__fish_seen_subcommand_from sweep; and not __fish_seen_subcommand_from $dlp_sweep_verbs" -a submit -d 'Submit a sweep spec'
complete -c dlp -n "__fish_seen_subcommand_from sweep; and not __fish_seen_subcommand_from $dlp_sweep_verbs" -a status -d "Show a sweep's leaderboard"
complete -c dlp -n "__fish_seen_subcommand_from sweep; and not __fish_seen_subcommand_from $dlp_sweep_verbs" -a list -d 'List sweeps'
complete -c dlp -n "__fish_seen_subcommand_from sweep; and not __fish_seen_subcommand_from $dlp_sweep_verbs" -a cancel -d 'Cancel a sweep'
complete -c dlp -n "__fish_seen_subcommand_from sweep; and not __fish_seen_subcommand_from $dlp_sweep_verbs" -a resume -d 'Go on driving a foreground sweep'
complete -c dlp -n "__fish_seen_subcommand_from sweep; and not __fish_seen_subcommand_from $dlp_sweep_verbs" -a delete -d 'Delete ended sweeps with their jobs'
complete -c dlp -n '__fish_seen_subcommand_from sweep; and __fish_seen_subcommand_from submit' -l set -x -d 'Override a spec value'
complete -c dlp -n '__fish_seen_subcommand_from sweep; and __fish_seen_subcommand_from submit' -l name -x -d 'Sweep name'
complete -c dlp -n '__fish_seen_subcommand_from sweep; and __fish_seen_subcommand_from submit' -l follow -d 'Follow the sweep until it ends'
complete -c dlp -n '__fish_seen_subcommand_from sweep; and __fish_seen_subcommand_from submit' -l foreground -d 'Run the controller in this process'
complete -c dlp -n '__fish_seen_subcommand_from sweep; and __fish_seen_subcommand_from submit resume' -s q -l quiet -d 'Print only the sweep id'
complete -c dlp -n '__fish_seen_subcommand_from sweep pipeline; and __fish_seen_subcommand_from delete' -s f -l force -d 'Cancel first what has not ended'
complete -c dlp -n '__fish_seen_subcommand_from sweep pipeline; and __fish_seen_subcommand_from delete' -s q -l quiet -d 'Print nothing on success'
complete -c dlp -n '__fish_seen_subcommand_from sweep; and __fish_seen_subcommand_from status list' -s o -l output -x -a 'table json' -d 'Output format'
complete -c dlp -n '__fish_seen_subcommand_from sweep; and __fish_seen_subcommand_from status' -l plot -d 'Draw the objective per trial'
complete -c dlp -n '__fish_seen_subcommand_from sweep; and __fish_seen_subcommand_from status' -l png -r -d 'Write the chart as a PNG image'

# ui
complete -c dlp -n "not __fish_seen_subcommand_from $dlp_commands" -a ui -d 'Open the web UI of the dlpd, signed in'
complete -c dlp -n '__fish_seen_subcommand_from ui' -l print-url -d 'Only print the one-time sign-in link'

# pipeline status ID | list | cancel ID | resume ID | delete ID...
complete -c dlp -n "not __fish_seen_subcommand_from $dlp_commands" -a pipeline -d 'Show, list, cancel, resume or delete pipelines'
set -l dlp_pipeline_verbs status list cancel resume delete
complete -c dlp -n "__fish_seen_subcommand_from pipeline; and not __fish_seen_subcommand_from $dlp_pipeline_verbs" -a status -d 'Show a pipeline as a tree of its jobs'
complete -c dlp -n "__fish_seen_subcommand_from pipeline; and not __fish_seen_subcommand_from $dlp_pipeline_verbs" -a list -d 'List pipelines'
complete -c dlp -n "__fish_seen_subcommand_from pipeline; and not __fish_seen_subcommand_from $dlp_pipeline_verbs" -a cancel -d 'Cancel every job of a pipeline'
complete -c dlp -n "__fish_seen_subcommand_from pipeline; and not __fish_seen_subcommand_from $dlp_pipeline_verbs" -a resume -d 'Drive a pipeline until it ends'
complete -c dlp -n "__fish_seen_subcommand_from pipeline; and not __fish_seen_subcommand_from $dlp_pipeline_verbs" -a delete -d 'Delete ended pipelines with their jobs'
complete -c dlp -n '__fish_seen_subcommand_from pipeline; and not __fish_seen_subcommand_from resume delete' -s o -l output -x -a 'table json' -d 'Output format'
complete -c dlp -n '__fish_seen_subcommand_from pipeline; and __fish_seen_subcommand_from resume' -s q -l quiet -d 'Print nothing while following'

# queue [show NAME]
complete -c dlp -n '__fish_seen_subcommand_from queue; and not __fish_seen_subcommand_from admin show' -a show -d 'Show one queue'
complete -c dlp -n '__fish_seen_subcommand_from queue; and not __fish_seen_subcommand_from admin' -s o -l output -x -a 'table json' -d 'Output format'
# admin tenant|token|queue
set -l dlp_admin_objects tenant token queue
complete -c dlp -n "__fish_seen_subcommand_from admin; and not __fish_seen_subcommand_from $dlp_admin_objects" -a tenant -d 'Create, update, list, show and delete tenants'
complete -c dlp -n "__fish_seen_subcommand_from admin; and not __fish_seen_subcommand_from $dlp_admin_objects" -a token -d "Create, list and revoke tenants' tokens"
complete -c dlp -n "__fish_seen_subcommand_from admin; and not __fish_seen_subcommand_from $dlp_admin_objects" -a queue -d 'Create, update, delete and list queues'
complete -c dlp -n '__fish_seen_subcommand_from admin; and __fish_seen_subcommand_from tenant; and not __fish_seen_subcommand_from create update list show delete' -a create -d 'Create a tenant'
complete -c dlp -n '__fish_seen_subcommand_from admin; and __fish_seen_subcommand_from tenant; and not __fish_seen_subcommand_from create update list show delete' -a update -d 'Change the queues or the disk quota of a tenant'
complete -c dlp -n '__fish_seen_subcommand_from admin; and __fish_seen_subcommand_from tenant; and not __fish_seen_subcommand_from create update list show delete' -a list -d 'List tenants'
complete -c dlp -n '__fish_seen_subcommand_from admin; and __fish_seen_subcommand_from tenant; and not __fish_seen_subcommand_from create update list show delete' -a show -d 'Show a tenant'
complete -c dlp -n '__fish_seen_subcommand_from admin; and __fish_seen_subcommand_from tenant; and not __fish_seen_subcommand_from create update list show delete' -a delete -d 'Delete a tenant and revoke its tokens'
complete -c dlp -n '__fish_seen_subcommand_from admin; and __fish_seen_subcommand_from token; and not __fish_seen_subcommand_from create list revoke' -a create -d 'Create a token (shown once)'
complete -c dlp -n '__fish_seen_subcommand_from admin; and __fish_seen_subcommand_from token; and not __fish_seen_subcommand_from create list revoke' -a list -d 'List tokens'
complete -c dlp -n '__fish_seen_subcommand_from admin; and __fish_seen_subcommand_from token; and not __fish_seen_subcommand_from create list revoke' -a revoke -d 'Revoke a token'
complete -c dlp -n '__fish_seen_subcommand_from admin; and __fish_seen_subcommand_from queue; and not __fish_seen_subcommand_from create update delete list' -a create -d 'Create a queue'
complete -c dlp -n '__fish_seen_subcommand_from admin; and __fish_seen_subcommand_from queue; and not __fish_seen_subcommand_from create update delete list' -a update -d "Change a queue's settings"
complete -c dlp -n '__fish_seen_subcommand_from admin; and __fish_seen_subcommand_from queue; and not __fish_seen_subcommand_from create update delete list' -a delete -d 'Delete a queue'
complete -c dlp -n '__fish_seen_subcommand_from admin; and __fish_seen_subcommand_from queue; and not __fish_seen_subcommand_from create update delete list' -a list -d 'List queues'
complete -c dlp -n '__fish_seen_subcommand_from admin; and __fish_seen_subcommand_from tenant; and __fish_seen_subcommand_from create' -l user -x -a '(__fish_complete_users)' -d 'Unix account its jobs run as'
complete -c dlp -n '__fish_seen_subcommand_from admin; and __fish_seen_subcommand_from tenant; and __fish_seen_subcommand_from create update' -l queues -x -d 'Queues its jobs may use (comma-separated)'
complete -c dlp -n '__fish_seen_subcommand_from admin; and __fish_seen_subcommand_from tenant; and __fish_seen_subcommand_from update' -l disk-quota -x -a 'default' -d 'Its own disk quota (10Gi; 0: none)'
complete -c dlp -n '__fish_seen_subcommand_from admin; and __fish_seen_subcommand_from token; and __fish_seen_subcommand_from create' -l expires -x -a '1h 1d 7d 30d 90d' -d 'Lifetime (30d; m, h, d or w)'
complete -c dlp -n '__fish_seen_subcommand_from admin; and __fish_seen_subcommand_from queue; and __fish_seen_subcommand_from create update' -l cohort -x -d 'Cohort that shares unused quota'
complete -c dlp -n '__fish_seen_subcommand_from admin; and __fish_seen_subcommand_from queue; and __fish_seen_subcommand_from create update' -l nominal -x -d 'Guaranteed quota (cpu=8,memory=64Gi,gpu=4)'
complete -c dlp -n '__fish_seen_subcommand_from admin; and __fish_seen_subcommand_from queue; and __fish_seen_subcommand_from create update' -l borrowing-limit -x -d 'Most it may borrow (or none)'
complete -c dlp -n '__fish_seen_subcommand_from admin; and __fish_seen_subcommand_from queue; and __fish_seen_subcommand_from create update' -l lending-limit -x -d 'Most it lends (or none)'
complete -c dlp -n '__fish_seen_subcommand_from admin; and __fish_seen_subcommand_from queue; and __fish_seen_subcommand_from create update' -l weight -x -d 'Fair-share weight'
complete -c dlp -n '__fish_seen_subcommand_from admin; and __fish_seen_subcommand_from queue; and __fish_seen_subcommand_from create update' -l priority-range -x -d 'Priorities its jobs may have (-100..1000)'
complete -c dlp -n '__fish_seen_subcommand_from admin; and __fish_seen_subcommand_from create update delete list show' -s o -l output -x -a 'table json' -d 'Output format'
