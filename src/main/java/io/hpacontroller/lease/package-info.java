/**
 * What the leader election ({@code ops.LeaderElection}) and the sharding ({@code shard.Sharding}) share about a Lease
 * this replica renews: its settings and their rules ({@link io.hpacontroller.lease.LeaseSettings}), the last renewal
 * that counted, which fences the writes ({@link io.hpacontroller.lease.LastRenewal}), and the loop that renews it every
 * retry period ({@link io.hpacontroller.lease.RenewLoop}).
 */
package io.hpacontroller.lease;
