ALTER TABLE "approval_decisions" DROP CONSTRAINT "approval_decisions_member_id_members_id_fk";
