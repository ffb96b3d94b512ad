# SPDX-License-Identifier: Apache-2.0
"""The oc swapguard plugin, one concept a module:

  cli        the command line: arguments, their checks, which command runs
  oc         the seam to the cluster: every `oc` process, how its errors read
  nodes      the selected nodes (oc get nodes)
  fanout     every node's document in a few oc adm node-logs calls
  documents  a node's status document read into its report; the pool's sums
  table      the status table's rows and summary lines
  times      ages and UTC instants as shown
  status     `status`: the table or JSON, and the exit status
  watch      `status -w`
  catalog    the journal catalog's explanations
  journal    `logs`: a node's journal, explained
  bundle     `bundle`: what a bug report needs, in one archive, without secrets
  states     the daemon's states and their meanings (generated from the code)
  version    the release's version, for --version

plugin/kubectl-swapguard runs it from a checkout; plugin/build-command.py
packs the package and that launcher into the one file that is installed."""
